# SPDX-License-Identifier: GPL-2.0
"""Build and statically check every prefix of the series.

For the base tree and then after each patch, build the objects the series
touches in build/BASE/bisect/out (x86_64 defconfig plus KUnit, every
KUnit test on, from the worktree build/BASE/bisect/linux) with gcc, W=1
and sparse on every file compiled (C=1); build them, at the same time,
with clang (Debian 13's clang-19, LLVM=-19, in the root of
lib/toolroot.py) and W=1 in build/BASE/bisect/out-clang; and run
scripts/kernel-doc -none -Wall on the C files and headers the patch
changes. A patch passes when its
prefix builds with both compilers and brings no compiler, sparse or
kernel-doc warning that the base tree did not have, so the
series stays bisectable and adds no warnings. Sparse on the files make
compiles is enough: the base build compiles every file of the targets,
and a later prefix can only bring a new warning to a file that it, or a
header the file includes, changed, which make then compiles again (the
compiler's warnings come back the same way, ccache keeping them for
the files it does not really compile). Builds are incremental:
after each patch, make runs on the targets in the directories the patch
changes (on all of them when it changes include/, and for the last
patch), and checking out the next patch only touches what it changed.
Every converted driver is built (drivers()), so this is also the series'
compile coverage.

With --whole, only the base and the whole series are built and checked
the same way: make check does that on the backport base (6.12), whose
sets are applied whole, to stay in its budget; make check-full walks
every prefix on every base; with --no-clang as well (make check on
6.12), gcc alone builds them, clang being 7.3's. With --clang-whole
(make check on 7.3),
gcc, sparse and kernel-doc walk every prefix and clang builds the base
and the whole series only: a clang build costs a prefix as much as the
gcc one, and the series brings no code that only clang compiles.

Sparse runs where the tree takes Debian's sparse. Linux 7.3's
scripts/checker-valid.sh refuses sparse 0.6.4, the newest Debian has (12
and 13), as it lacks __typeof_unqual__, which the tree's headers use for
the checker; kbuild then turns C=1 off with a warning only. This stage
asks checker-valid.sh first, says when sparse cannot run and why, and
fails when kbuild turns sparse off on a tree that took it.

A walk keeps the steps that passed (lib/walkcache.py), each under a key
chained from the walk's set-up and the trees of the base and every
prefix up to it. The next walk shares the keys of the base and of the
patches before the first one that changed; it builds every target at
the last of those, checks that nothing there warns that the kept steps
had not seen (or walks from the base), and goes on from the next patch:
a patch changed near the end of the series costs a few steps, not the
walk. An unchanged series is not built again.
"""

from __future__ import annotations

import argparse
import os
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lib import resultcache, results, toolroot, walkcache
from lib.common import (
    Config, Failure, config, driver_kunitconfigs, jobs, kunitconfigs, log,
    main_guard, run, series_patches
)


def src_dir(cfg: Config) -> Path:
    """A worktree of its own, so that walking the series never touches
    build/linux, which KUnit and the guest kernels build from while this
    stage runs beside them."""
    return cfg.build / "bisect" / "linux"


def out_dir(cfg: Config, clang: bool = False) -> Path:
    """Where its objects go: build/bisect/out, or out-clang for clang's."""
    return cfg.build / "bisect" / ("out-clang" if clang else "out")


# Directories and objects the series touches, built at every step.
TARGETS = ["drivers/base/devres.o", "drivers/gpio/gpio-exar.o",
           "drivers/base/board_numbers.o",
           "drivers/base/test/", "drivers/net/ethernet/ti/tlan.o",
           "drivers/net/ethernet/intel/e1000/",
           "drivers/net/ethernet/intel/e1000e/",
           "drivers/net/ethernet/realtek/8139too.o",
           "drivers/net/ethernet/amd/pcnet32.o",
           "drivers/net/ethernet/amd/amd8111e.o",
           "drivers/net/ethernet/dec/tulip/",
           "drivers/net/ethernet/8390/ne2k-pci.o",
           "drivers/net/ethernet/3com/3c59x.o",
           "drivers/net/ethernet/3com/3c509.o",
           "drivers/net/ethernet/natsemi/natsemi.o",
           "drivers/net/ethernet/dlink/",
           "drivers/net/ethernet/smsc/epic100.o",
           "drivers/net/ethernet/fealnx.o",
           "drivers/net/ethernet/packetengines/",
           "drivers/net/ethernet/atheros/atl1e/",
           "drivers/net/ethernet/atheros/atlx/",
           "drivers/net/ethernet/via/via-velocity.o",
           "drivers/net/ethernet/alteon/acenic.o",
           "drivers/net/ethernet/myricom/myri10ge/myri10ge.o",
           "drivers/hid/hid-prodikeys.o", "drivers/usb/atm/ueagle-atm.o",
           # ALSA's helper and its KUnit file, then the ALSA and media
           # drivers the series converts, as the objects the changed files
           # are compiled into: their directories hold many more drivers,
           # and their libraries need no build for a compile check. A
           # single object is compiled even where its Kconfig symbol is
           # off (se6x, which Kconfig keeps apart from oxygen;
           # radio-sf16fmr2 and 3c509, which need ISA).
           "sound/core/init.o", "sound/core/sound_kunit.o",
           *[f"sound/pci/{o}.o" for o in (
               "ens1370", "ens1371", "als300", "als4000", "au88x0/au8830",
               "aw2/aw2-alsa", "azt3328", "ca0106/ca0106_main", "cs46xx/cs46xx",
               "echoaudio/darla20", "emu10k1/emu10k1x", "es1938", "es1968",
               "ice1712/ice1712", "ice1712/ice1724", "lola/lola",
               "lx6464es/lx6464es", "maestro3", "rme9652/hdsp", "rme9652/hdspm",
               "rme9652/rme9652", "sonicvibes", "trident/trident", "vx222/vx222",
               "ymfpci/ymfpci", "ad1889", "asihpi/asihpi", "bt87x", "cmipci",
               "cs4281", "ctxfi/xfi", "emu10k1/emu10k1", "fm801",
               "korg1212/korg1212", "mixart/mixart", "oxygen/oxygen",
               "oxygen/virtuoso", "oxygen/se6x", "pcxhr/pcxhr",
               "riptide/riptide", "rme32", "rme96", "cs5530",
               "cs5535audio/cs5535audio")],
           "sound/usb/caiaq/device.o", "sound/usb/hiface/chip.o",
           *[f"drivers/media/{o}.o" for o in (
               "usb/hdpvr/hdpvr-core", "usb/go7007/snd-go7007",
               "pci/cx88/cx88-alsa", "pci/dm1105/dm1105", "pci/cx18/cx18-driver",
               "pci/cx23885/cx23885-core", "pci/cx23885/cx23885-video",
               "pci/cx25821/cx25821-core", "pci/cx25821/cx25821-video",
               "pci/saa7134/saa7134-core", "pci/saa7134/saa7134-empress",
               "pci/zoran/zoran_card", "pci/ivtv/ivtv-driver",
               "pci/ivtv/ivtv-alsa-main", "pci/saa7164/saa7164-core",
               "radio/radio-sf16fmr2",
               "tuners/tuner-simple")]]
# Drivers removed before Linux 7.3 (kunit/6.12.kunitconfig lists them):
# built on the 6.12 base only.
ONLY_6_12 = ["drivers/net/ethernet/packetengines/",
             "drivers/net/ethernet/alteon/acenic.o"]


def targets(cfg: Config) -> list[str]:
    """TARGETS on @cfg's base."""
    return [t for t in TARGETS if cfg.kernel == "6.12" or t not in ONLY_6_12]


def modules(cfg: Config) -> list[str]:
    """acenic, on 6.12: its per-board options exist only in a module build."""
    return ["ACENIC"] if cfg.kernel == "6.12" else []


def drivers(cfg: Config) -> list[str]:
    """The series' KUnit suites (.kunitconfig) and every driver the series
    converts, with the vendor menus they sit in: one list,
    kunit/drivers.kunitconfig (and the base's own fragment), read from
    there. Built here for compile coverage, so that no patch of the
    series rots unnoticed; built in, except modules()."""
    text = "".join(c.read_text() for c in kunitconfigs() + driver_kunitconfigs(cfg))
    return [name for name in re.findall(r"^CONFIG_(\w+)=y$", text, re.M)
            if name not in modules(cfg)]


def config_args(cfg: Config) -> list[str]:
    """scripts/config's arguments. WERROR off: W=1 finds old warnings in
    some of these drivers (tulip_core's unused force_csr0), which must be
    counted, not stop the build."""
    return ["--enable", "KUNIT_ALL_TESTS", "--disable", "WERROR",
            *[arg for name in drivers(cfg) for arg in ("--enable", name)],
            *[arg for name in modules(cfg) for arg in ("--module", name)]]


WARNING = re.compile(r"^(\S+?):\d+(?::\d+)?: (warning|error): (.*)$")
# scripts/kernel-doc in Python (Linux 6.16 on) says "Warning: FILE:LINE
# TEXT", where the Perl one of 6.12 said "FILE:LINE: warning: TEXT".
KERNEL_DOC_WARNING = re.compile(r"^(Warning|Error): (\S+?):\d+ (.*)$")
# What kbuild prints when scripts/checker-valid.sh refuses the checker,
# before it turns C=1 off.
SPARSE_OFF = "specified, but sparse is not available or not up to date"


def git(cfg: Config, *args: str) -> str:
    return run(["git", *args], cwd=src_dir(cfg), capture=True).stdout.strip()


def worktree(cfg: Config) -> None:
    """build/bisect/linux: a detached worktree of build/linux, made anew
    when it is missing or belongs to a tree unpacked from another tarball."""
    src = src_dir(cfg)
    if (src / ".git").exists() and run(["git", "rev-parse", "HEAD"], cwd=src,
                                       capture=True, check=False).returncode == 0:
        return
    run(["rm", "-rf", str(src)])
    run(["git", "worktree", "prune"], cwd=cfg.tree)
    run(["git", "worktree", "add", "-q", "--detach", str(src), "series"],
        cwd=cfg.tree, capture=True)


def make(cfg: Config, *args: str, check: bool = True, clang: bool = False) -> tuple[int, str]:
    """make in the worktree: with gcc into out_dir(), or with Debian 13's
    clang (in the tool root) into clang's."""
    src, out = src_dir(cfg), out_dir(cfg, clang)
    if not clang:
        proc = run(["make", f"O={out}", f"-j{jobs()}", *args],
                   cwd=src, capture=True, check=check)
        return proc.returncode, proc.stdout
    cmd = ["make", f"O={out}", f"LLVM={toolroot.LLVM}", f"-j{jobs()}", *args]
    proc = run(toolroot.command(cmd, [src, out], src),
               capture=True, check=check)
    return proc.returncode, proc.stdout


def configure(cfg: Config, clang: bool = False) -> None:
    # Applied to a kept build directory too, so that a driver added to
    # drivers() is built from the next run on.
    out = out_dir(cfg, clang)
    if not (out / ".config").is_file():
        log(f"configuring {out} (x86_64 defconfig + KUnit + drivers)")
        out.mkdir(parents=True, exist_ok=True)
        make(cfg, "x86_64_defconfig", clang=clang)
    run(["scripts/config", "--file", str(out / ".config"), *config_args(cfg)],
        cwd=src_dir(cfg))
    make(cfg, "olddefconfig", clang=clang)
    lines = (out / ".config").read_text().splitlines()
    # A test suite of a modular driver is itself modular (ace_options).
    missing = ([n for n in drivers(cfg) if f"CONFIG_{n}=y" not in lines and
                f"CONFIG_{n}=m" not in lines] +
               [n for n in modules(cfg) if f"CONFIG_{n}=m" not in lines])
    if missing:
        raise Failure(f"{out}/.config lacks " + ", ".join(missing) +
                      ": a dependency of theirs is off, so they would not "
                      "be compile-tested")


def warnings(cfg: Config, output: str) -> Counter[str]:
    """Warnings keyed by file and text, without line numbers that shift."""
    found: Counter[str] = Counter()
    for line in output.splitlines():
        m = WARNING.match(line)
        if m:
            where, kind, text = m.groups()
        else:
            m = KERNEL_DOC_WARNING.match(line)
            if not m:
                continue
            kind, where, text = m.group(1).lower(), m.group(2), m.group(3)
        # gcc names a source relative to the build directory
        # (../linux/...), sparse by its absolute path: one key for both.
        path = re.sub(r"^(\.\./)+linux/", "", where.replace(f"{src_dir(cfg)}/", ""))
        found[f"{path}: {kind}: {text}"] += 1
    return found


def sparse_refused(cfg: Config) -> str:
    """Why the checked-out tree's kbuild refuses Debian's sparse, or ""
    when it takes it: the tree's own test, scripts/checker-valid.sh, with
    the flags x86_64 gives it."""
    script = src_dir(cfg) / "scripts" / "checker-valid.sh"
    if not script.is_file():
        return ""
    proc = run(["sh", str(script), "sparse", "--arch=x86", "-mlittle-endian",
                "-m64"], cwd=src_dir(cfg), capture=True, check=False)
    if proc.stdout.strip() == "1":
        return ""
    version = run(["sparse", "--version"], capture=True,
                  check=False).stdout.strip() or "(not found)"
    lacks = (", which lacks __typeof_unqual__ (the tree's headers use it "
             "for the checker)" if "__typeof_unqual__" in script.read_text() else "")
    return (f"the tree's scripts/checker-valid.sh refuses sparse {version}"
            f"{lacks}; Debian has no newer sparse")


def kernel_doc(cfg: Config, files: list[str]) -> str:
    """scripts/kernel-doc's warnings about the C files and headers among
    @files that exist in the checked-out tree, as "file:line: warning:"
    lines like the compiler's."""
    src = src_dir(cfg)
    sources = [f for f in files
               if f.endswith((".c", ".h")) and (src / f).is_file()]
    if not sources:
        return ""
    proc = run(["scripts/kernel-doc", "-none", "-Wall", *sources], cwd=src,
               capture=True, check=False)
    if proc.returncode not in (0, 1) and "warning:" not in proc.stdout:
        raise Failure(f"scripts/kernel-doc failed:\n{proc.stdout}")
    return proc.stdout


def changed(cfg: Config, commit: str) -> list[str]:
    return git(cfg, "diff-tree", "--no-commit-id", "--name-only", "-r",
               commit).splitlines()


def changed_by_series(cfg: Config) -> list[str]:
    return git(cfg, "diff", "--name-only", "base", "series").splitlines()


def touched(cfg: Config, files: list[str]) -> list[str]:
    """The targets a change to @files can break: every target in a
    directory they are in (a driver's own headers, Kconfig and the KUnit
    file it includes sit beside it), and all of them for a header under
    include/."""
    if any(f.startswith("include/") for f in files):
        return targets(cfg)
    dirs = {f.rsplit("/", 1)[0] + "/" for f in files}
    return [t for t in targets(cfg)
            if any(d.startswith(t) if t.endswith("/") else
                   t.rsplit("/", 1)[0] + "/" == d for d in dirs)]


def built(cfg: Config, path: str) -> bool:
    """Whether a target compiles the C file @path: a directory target
    above it, its own object, or an object of its directory whose source
    includes it (au8830.c includes au88x0.c)."""
    folder, name = path.rsplit("/", 1)
    for target in targets(cfg):
        if target.endswith("/"):
            if path.startswith(target):
                return True
        elif target == path[:-2] + ".o":
            return True
        elif target.rsplit("/", 1)[0] == folder:
            source = src_dir(cfg) / (target[:-2] + ".c")
            if (source.is_file() and f'#include "{name}"'
                    in source.read_text(errors="replace")):
                return True
    return False


def unbuilt(cfg: Config, files: list[str]) -> list[str]:
    """The C files among @files that no target compiles: a patch that
    touches one would pass every prefix while nothing compiled it."""
    return [f for f in files if f.endswith(".c") and not built(cfg, f)]


def present(targets: list[str], tree: Path) -> list[str]:
    """The targets whose source @tree holds: a file the series adds
    (drivers/base/board_numbers.c) is not in the base tree or the
    prefixes before it, and make would build a stale object left in a
    kept build directory, or fail on a fresh one."""
    return [t for t in targets
            if ((tree / t).is_dir() if t.endswith("/")
                else (tree / t).with_suffix(".c").is_file())]


def build(cfg: Config, label: str, wanted: list[str], kconfig: bool = True,
          clang: bool = False, sparse: bool = True) -> tuple[int, Counter[str], str]:
    # olddefconfig picks up Kconfig symbols a patch adds, with their
    # defaults (KUNIT_ALL_TESTS turns the new test suites on).
    if kconfig:
        make(cfg, "olddefconfig", clang=clang)
    wanted = present(wanted, src_dir(cfg))
    if not wanted:
        return 0, Counter(), ""
    # Sparse once, with gcc: it checks the source, not the compiler.
    checker = sparse and not clang
    flags = ("W=1", "C=1") if checker else ("W=1",)
    code, out = make(cfg, *flags, *wanted, check=False, clang=clang)
    out_dir(cfg, clang).joinpath(f"build-{label}.log").write_text(out)
    if checker and SPARSE_OFF in out:
        raise Failure("kbuild turned sparse off although the tree's "
                      "scripts/checker-valid.sh took it; no prefix would be "
                      f"checked:\n{out[:2000]}")
    return code, warnings(cfg, out), out


def both(cfg: Config, label: str, wanted: list[str], kconfig: dict[str, bool],
         sparse: bool = True) -> dict[str, tuple[int, Counter[str], str]]:
    """build() with each compiler of @kconfig (gcc, clang: whether its
    configuration must be brought up to date first) at the same time: each
    make spends much of a prefix's time in its own serial steps
    (configuration, prepare), which the other's compiling fills."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        running = {compiler: pool.submit(build, cfg, label, wanted, again,
                                         clang=compiler == "clang", sparse=sparse)
                   for compiler, again in kconfig.items()}
        return {compiler: job.result() for compiler, job in running.items()}


def new_warnings(found: Counter[str], seen: Counter[str]) -> Counter[str]:
    """The warnings of @found that @seen (the base and the prefixes before)
    did not have, a second copy of one it had once included."""
    return found - seen


def report(name: str, failures: list[tuple[str, int, str, Counter[str]]]) -> None:
    print(f"bisect: FAIL  {name}")
    for compiler, code, out, new in failures:
        if code != 0:
            print(f"    does not build with {compiler}:")
            for line in out.splitlines()[-15:]:
                print(f"      {line}")
        for warning in sorted(new):
            print(f"    new ({compiler}): {warning}")


def setup(cfg: Config, whole: bool, clang_whole: bool, compilers: tuple[str, ...]) -> str:
    """The digest of what every step's result depends on but the trees
    (lib/walkcache.py chains the trees onto it): what is built and how,
    the files the series changes (the base's kernel-doc warnings are
    those of these files), this file and the clang root's module, the
    host's compilers, sparse and make, and the clang root's packages when
    clang builds."""
    roots = [toolroot.CLANG.path / "var" / "lib" / "dpkg" / "status"] \
        if "clang" in compilers else []
    return resultcache.digest([
        "bisect", f"whole={whole} clang_whole={clang_whole}", " ".join(compilers),
        "\n".join(targets(cfg)), " ".join(config_args(cfg)),
        "\n".join(changed_by_series(cfg)),
        *resultcache.files([Path(__file__), Path(toolroot.__file__),
                            Path(walkcache.__file__), *roots,
                            *kunitconfigs(), *driver_kunitconfigs(cfg)]),
        resultcache.packages(["gcc", "gcc-12", "binutils", "make", "sparse",
                              "perl", "python3", "libelf-dev", "libssl-dev",
                              "bison", "flex"])])


def trees(cfg: Config, commits: list[str]) -> list[str]:
    """The trees (not the commits, whose ids differ between clones) of the
    base and of @commits."""
    return git(cfg, "rev-parse", *[f"{c}^{{tree}}" for c in ["base", *commits]]).split()


def touch(cfg: Config, files: list[str]) -> None:
    """Make @files newer than any object built from them, so that make
    compiles them, and what includes them, again."""
    for name in files:
        where = src_dir(cfg) / name
        if where.is_file():
            os.utime(where)


def resync(cfg: Config, commit: str, kept: walkcache.Step, compilers: tuple[str, ...],
           clang_whole: bool) -> str:
    """Bring the build directories to @commit, the last step @kept, before
    the walk goes on after it: build every target there with each
    compiler, as the walk would have left them. With --clang-whole clang's
    last build was the base's, so the files the series changed up to
    @commit are compiled again for it (ccache gives their warnings back).
    Returns why the walk must start from the base instead: a build that
    fails, or a warning that the kept steps had not seen; "" when it may
    go on."""
    git(cfg, "checkout", "-q", "--detach", commit)
    if clang_whole and "clang" in compilers:
        touch(cfg, git(cfg, "diff", "--name-only", "base", commit).splitlines())
    for compiler, (code, found, out) in both(
            cfg, "resync", targets(cfg), dict.fromkeys(compilers, True), False).items():
        if code != 0:
            return f"it does not build with {compiler} there"
        new = new_warnings(found, kept.seen[compiler])
        if new:
            return (f"{compiler} warns there as the kept steps had not seen: "
                    + "; ".join(sorted(new)[:3]))
    return ""


def replay(steps: list[walkcache.Step], upto: int, lines_from: int = 0) -> list[results.Row]:
    """Print what a kept walk printed for its first @upto @steps (the base
    counts as one), from step @lines_from on, and give back their rows."""
    for step in steps[lines_from:upto]:
        for line in step.lines:
            print(line)
    return [step.row for step in steps[1:upto] if step.row]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--whole", action="store_true",
                        help="build the base and the whole series only, not "
                        "each prefix (make check on the backport base)")
    parser.add_argument("--clang-whole", action="store_true",
                        help="build each prefix with gcc, and the base and the "
                        "whole series only with clang (make check on 7.3)")
    parser.add_argument("--no-clang", action="store_true",
                        help="build with gcc only (make check on 6.12)")
    args = parser.parse_args()
    cfg = config()
    every = targets(cfg)
    names = series_patches(cfg.series)
    worktree(cfg)
    if git(cfg, "rev-list", "--count", "base..series") != str(len(names)):
        raise Failure("branch series does not hold the series: run 'make tree'")
    compilers = ("gcc",) if args.no_clang else ("gcc", "clang")
    # (commit, name, files it changes, targets) of each step after the base
    if args.whole:
        steps = [("series", f"the whole series ({len(names)} patches)",
                  changed_by_series(cfg), every)]
    else:
        steps = []
        for index, name in enumerate(names, 1):
            commit = f"series~{len(names) - index}"
            files = changed(cfg, commit)
            missed = unbuilt(cfg, files)
            if missed:
                raise Failure(f"{name} changes {', '.join(missed)}, which no "
                              "target of scripts/checks/bisect.py builds: add "
                              "its object to TARGETS (and its driver to "
                              "kunit/drivers.kunitconfig)")
            # The last prefix builds everything, as the base did.
            steps.append((commit, name, files,
                          every if index == len(names) else touched(cfg, files)))
    keys = walkcache.chain(setup(cfg, args.whole, args.clang_whole, compilers),
                           trees(cfg, [commit for commit, _, _, _ in steps]))
    kept, kept_extra, finished = walkcache.load(cfg)
    start = walkcache.shared(kept, keys)
    # The record of the whole walk that came before this one.
    resultcache.path("bisect", cfg).unlink(missing_ok=True)
    if start == len(keys):
        print(f"bisect: same inputs as the walk of {finished}, which passed: "
              "its results follow, not run again (BOARD_NUMBERS_FRESH=1 runs it)")
        kept_rows = replay(kept, start)
        results.save(cfg, "bisect", kept_rows, **kept_extra)
        print(f"bisect: {len(kept_rows)} passed, 0 failed")
        return 0
    walked: list[walkcache.Step] = []
    base_lines: list[str] = []

    def say(line: str) -> None:
        """Print @line and keep it with the step the walk is at."""
        print(line, flush=True)
        (walked[-1].lines if walked else base_lines).append(line)

    refused = sparse_refused(cfg)
    sparse = not refused
    if refused:
        say(f"bisect: sparse cannot run on this base: {refused}. Prefixes "
            "are checked with gcc W=1, clang W=1 and kernel-doc; sparse "
            "runs on the bases whose tree takes it.")
    if "clang" in compilers:
        toolroot.CLANG.ensure()
        configure(cfg, clang=True)
    configure(cfg)
    original = git(cfg, "rev-parse", "series")
    checked = "W=1, sparse or kernel-doc" if sparse else "W=1 or kernel-doc"
    passed = failed = 0
    rows: list[results.Row] = []
    extra = {"clang": f"clang{toolroot.LLVM} (Debian {toolroot.CLANG.suite})",
             "sparse": refused or "on every gcc build",
             "clang_steps": ("none (make check-full builds with clang)" if args.no_clang
                             else "base and whole series" if args.clang_whole
                             else "every step")}
    try:
        seen: dict[str, Counter[str]] = {}
        if start:
            commit = "base" if start == 1 else steps[start - 2][0]
            log(f"the base and {start - 1} prefixes have the keys of the walk of "
                f"{finished}, which passed them: building every target at "
                f"{'the base' if start == 1 else steps[start - 2][1]} to go on from there")
            why = resync(cfg, commit, kept[start - 1], compilers, args.clang_whole)
            if why:
                log(f"walking from the base: {why}")
                start = 0
        if start:
            print(f"bisect: the base and {start - 1} prefixes have the same inputs "
                  f"as in the walk of {finished}, which passed them: their results "
                  "follow, not built again (BOARD_NUMBERS_FRESH=1 builds them)")
            # Not the base's lines: this walk has said them again.
            rows = replay(kept, start, lines_from=1)
            passed = len(rows)
            walked = kept[:start]
            seen = {c: Counter(w) for c, w in kept[start - 1].seen.items()}
        else:
            git(cfg, "checkout", "-q", "--detach", "base")
            log("building the base tree's objects with gcc (W=1" +
                (", C=1" if sparse else "") + ")" +
                (" and clang (W=1)" if "clang" in compilers else "") +
                ", and running kernel-doc")
            for compiler, (code, seen[compiler], out) in both(
                    cfg, "base", every, dict.fromkeys(compilers, True), sparse).items():
                if code != 0:
                    raise Failure(f"the base tree does not build with {compiler}:\n" +
                                  "\n".join(out.splitlines()[-20:]))
            seen["gcc"] += warnings(cfg, kernel_doc(cfg, changed_by_series(cfg)))
            walked.append(walkcache.Step(keys[0], {c: Counter(w) for c, w in seen.items()},
                                         None, base_lines))
        for index, (commit, name, files, wanted) in enumerate(steps, 1):
            if index < start:
                continue
            git(cfg, "checkout", "-q", "--detach", commit)
            kconfig = {"gcc": any("Kconfig" in f for f in files)}
            if "clang" in compilers and (not args.clang_whole or index == len(steps)):
                # With --clang-whole, clang's build directory was last
                # brought up at the base (or at the step the walk went on
                # after).
                kconfig["clang"] = kconfig["gcc"] or args.clang_whole
            failures = []
            counts = []
            for compiler, (code, found, out) in both(cfg, f"{index:04d}", wanted,
                                                     kconfig, sparse).items():
                if compiler == "gcc":
                    found += warnings(cfg, kernel_doc(cfg, files))
                new = new_warnings(found, seen[compiler])
                counts.append(f"{len(new)} new {compiler} warnings")
                if code != 0 or new:
                    failures.append((compiler, code, out, new))
                seen[compiler] = seen[compiler] | found
            row = (name, not failures, ", ".join(counts))
            rows.append(row)
            walked.append(walkcache.Step(keys[index], {c: Counter(w) for c, w in seen.items()},
                                         row))
            if failures:
                failed += 1
                report(name, failures)
            else:
                passed += 1
                built = "all objects" if wanted == every else ", ".join(
                    t.rsplit("/", 2)[-2] if t.endswith("/") else t.rsplit("/", 1)[-1]
                    for t in wanted) or "nothing to build"
                docs = sum(f.endswith((".c", ".h")) for f in files)
                say(f"bisect: PASS  {name} (builds with "
                    f"{' and '.join(kconfig)}, no new {checked} warning; "
                    f"{built}; kernel-doc on {docs} files)")
    finally:
        git(cfg, "checkout", "-q", "--detach", "series")
        walkcache.keep(cfg, walked, extra)
        if git(cfg, "rev-parse", "HEAD") != original:
            raise Failure("could not return to branch series")
    results.save(cfg, "bisect", rows, **extra)
    print(f"bisect: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
