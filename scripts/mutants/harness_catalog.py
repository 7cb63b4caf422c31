# SPDX-License-Identifier: GPL-2.0
"""The harness mutation run's catalog: one-line breakages of the harness.

Where mutants/catalog.py breaks the series to show that the gate sees it,
this catalog breaks the gate's own code (scripts/) to show that the
harness's unit tests (scripts/tests/test_*.py, "python3 -m tests") see
that. A runner applies each mutant alone to a copy of the repository and
runs those tests; 90 % or more of the mutants must turn them red. A
mutant that survives names a behaviour no test holds down.

Each mutant is one small change (an operator, a comparison, a constant,
a condition negated or dropped, a return value, a swapped argument) in
one line of code:

- @old occurs exactly once in scripts/@path, or the catalog is out of
  date; it may carry a little of its line's surrounding text to be unique;
- the change alters behaviour that matters: a verdict, the negative
  control, the order of the stages, a refusal, the parsing of a log,
  KTAP, console, QMP, checkpatch or compiler output, or a count; never a
  comment, a docstring, a log message or dead code;
- the mutated file stays valid Python, clean under mypy --strict and
  pyflakes (which the harness's own tests run), so that only a
  behavioural test can catch it;
- the mutants are the ways a reviewer expects this code to go wrong, not
  the ones known to be caught: some may survive.

@breaks says in one line what the mutant breaks.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HarnessMutant:
    name: str    # short unique id, kebab-case
    path: str    # file relative to scripts/
    old: str     # exact text that occurs exactly once in that file
    new: str     # its replacement
    breaks: str  # one line: the behaviour this breaks


GATE = "gate/gate.py"
KTAP = "gate/ktap.py"
FIGURES = "gate/figures.py"
RESULTS = "lib/results.py"
MODEL = "model/model.py"
CHECK = "model/check.py"
VERDICT = "model/verdict.py"
COVER = "mail/cover_letter.py"
SEND = "mail/send_prep.py"
TREE = "series/tree.py"
CHECKPATCH = "checks/checkpatch.py"
BISECT = "checks/bisect.py"
WALKCACHE = "lib/walkcache.py"
RELIABILITY = "reliability/"

MUTANTS: list[HarnessMutant] = [
    # gate/gate.py: order, verdicts, skips, where a stage runs
    HarnessMutant(
        "scheduler-ignores-after", GATE,
        "for j in todo if not j.after or j.after in finished)", "for j in todo)",
        "a worker starts a guest run before its base's guest kernels are built"),
    HarnessMutant(
        "gate-exit-status-one-passes", GATE,
        "if code != 0 and verdict.failed == 0:", "if code > 1 and verdict.failed == 0:",
        "a stage that exits 1 with no failing case counts as passed"),
    HarnessMutant(
        "gate-counts-stale-results", GATE,
        "if path.is_file() and path.stat().st_mtime >= self.started:", "if path.is_file():",
        "results an earlier run left behind are counted as this run's"),
    HarnessMutant(
        "gate-kernel-build-always-passes", GATE, '[("build", code == 0, ', '[("build", True, ',
        "a guest kernel build that failed is reported as built"),
    HarnessMutant(
        "gate-missing-results-pass", GATE,
        "elif not verdict.rows:", "elif not verdict.rows and code != 0:",
        "a stage that exits 0 but saved no results passes with zero cases"),
    HarnessMutant(
        "runs-on-only-inverted", GATE, "return self.only == base", "return self.only != base",
        "a one-base stage (reliability, userspace) runs on every base but its own"),
    HarnessMutant(
        "runs-on-upstream-only-inverted", GATE,
        "return tier not in self.upstream_only or", "return tier in self.upstream_only or",
        "upstream_only is applied in the tiers that do not name it, and not in those that do"),
    HarnessMutant(
        "jobs-ignore-runs-on", GATE,
        "for base in ordered if stage.runs_on(tier, base)]", "for base in ordered]",
        "the job list schedules every stage on every base, whatever runs_on says"),
    HarnessMutant(
        "jobs-backport-kernels-first", GATE,
        "return todo[:at] + later + todo[at:]", "return later + todo",
        "the backport base's guest kernels take a worker before UPSTREAM's prefix walk"),
    HarnessMutant(
        "gate-left-out-stage-unreported", GATE,
        "elif not stage.runs_on(self.tier, base) and", "elif stage.runs_on(self.tier, base) and",
        "a stage left out on a base vanishes from the KTAP instead of being a SKIP"),
    HarnessMutant(
        "gate-tier-skip-unreported", GATE,
        "elif stage.skip and self.tier not in stage.args:",
        "elif stage.skip and self.tier in stage.args:",
        "a stage the tier leaves out (kunit-debug in make check) is not reported as skipped"),
    # gate/ktap.py
    HarnessMutant(
        "ktap-empty-stage-ok", KTAP,
        "ok = stage.failed == 0 and bool(stage.rows)", "ok = stage.failed == 0",
        "a stage with no case at all is an ok test in the KTAP"),
    HarnessMutant(
        "ktap-hash-not-escaped", KTAP, 'text.replace("#", "no.")', 'text.replace("#", "#")',
        "a case name with '#' turns into a KTAP directive (# SKIP, # TODO)"),
    HarnessMutant(
        "ktap-failures-counted-passed", KTAP,
        "return sum(1 for _, ok, _ in self.rows if ok)", "return len(self.rows)",
        "a stage's failing cases are counted among its passed ones"),
    # gate/figures.py
    HarnessMutant(
        "figures-records-failed-run", FIGURES,
        'if gate.get("failed"):', 'if gate.get("failures"):',
        "make figures writes docs/figures.md from a gate run that failed"),
    HarnessMutant(
        "figures-other-series-accepted", FIGURES,
        'if ids.get("tree") != tree:', 'if ids.get("tree") == tree:',
        "figures of another version of the series are written, this series' refused"),
    HarnessMutant(
        "figures-keeps-other-tree-sections", FIGURES, "if m and m.group(1) == tree:", "if m:",
        "sections measured on another series tree stay in docs/figures.md"),
    HarnessMutant(
        "figures-cold-from-misses", FIGURES,
        'cold = cache["files_before"] == 0',
        'cold = cache.get("misses", 0) > cache.get("hits", 0)',
        "a warm run that builds one base's guest kernels anew is filed as cold"),
    # lib/results.py
    HarnessMutant(
        "results-one-failure-exits-zero", RESULTS,
        "return 1 if failed else 0", "return 1 if failed > 1 else 0",
        "a stage with exactly one failing row exits 0"),
    HarnessMutant(
        "results-load-accepts-one-failure", RESULTS,
        'if record["failed"]:', 'if record["failed"] > 1:',
        "the cover letter takes a record with one failing row as a passing run"),
    HarnessMutant(
        "results-load-accepts-other-series", RESULTS,
        'record.get("tree") != series_commit("series^{tree}", tree)',
        'record.get("tree") == series_commit("series^{tree}", tree)',
        "a record of another series tree is accepted, one of the same tree refused"),
    # model/model.py
    HarnessMutant(
        "model-numbers-start-at-one", MODEL,
        "for number in range(self.spec.slots):", "for number in range(1, self.spec.slots):",
        "the model hands a new board number 1, not the lowest free unowned number 0"),
    HarnessMutant(
        "model-owner-not-recorded", MODEL,
        "if number < self.spec.slots and number not in self.owners:",
        "if number < self.spec.slots and number in self.owners:",
        "no board ever owns a slot: a re-added board is expected to be a foreign one"),
    HarnessMutant(
        "model-last-board-owns", MODEL,
        "if number < self.spec.slots and number not in self.owners:",
        "if number < self.spec.slots:",
        "the last board to take a number owns its slot, not the first"),
    HarnessMutant(
        "model-foreign-gets-owner-values", MODEL,
        "if self.owners.get(number) == board:", "if number in self.owners:",
        "a board on a number another board owns is expected to get all its values"),
    HarnessMutant(
        "model-alike-ignored", MODEL,
        "len(vals) >= 2 and len(set(vals)) == 1", "len(vals) >= 2 and len(set(vals)) == 0",
        "values given alike for every slot (pcnet32's full_duplex) are defaults on a "
        "foreign board"),
    HarnessMutant(
        "model-own-number-skipped", MODEL,
        "        for number in owned:\n            if number not in used:",
        "        for number in owned:\n            if number in used:",
        "a re-added board does not take back the number it owns"),
    HarnessMutant(
        "model-warning-off-by-one", MODEL,
        "and number >= spec.slots", "and number > spec.slots",
        "the board numbered exactly the slot count is expected without the warning"),
    HarnessMutant(
        "model-remove-keeps-number", MODEL,
        "        del self.taken[board]\n", "        self.taken.get(board)\n",
        "a board that went away keeps its number in the model"),
    HarnessMutant(
        "model-failed-probe-frees-slot", MODEL,
        "self.take(board, took)", "self.owners.pop(took, None)",
        "a probe that failed owns no slot, as if it had never taken its number"),
    # model/check.py
    HarnessMutant(
        "check-higher-number-passes", CHECK,
        "elif number is not None and number != expected.number:",
        "elif number is not None and number < expected.number:",
        "a board number above the model's (the plain kernel's new numbers) is no violation"),
    HarnessMutant(
        "check-board-number-of-any-device", CHECK,
        r'rf"{re.escape(DRIVERS[driver].name)} {re.escape(pci)}: "',
        r'rf"{re.escape(DRIVERS[driver].name)} \S+: "',
        "another device's 'board number N' console line is read as this probe's"),
    HarnessMutant(
        "check-missing-warning-passes", CHECK,
        "elif result.warned != expected.warns:",
        "elif result.warned and not expected.warns:",
        "a 'no configuration for board' warning the model expects may be missing"),
    HarnessMutant(
        "check-unexpected-ignored-message", CHECK,
        "elif expected.told is not None and told != expected.told:",
        "elif expected.told and told != expected.told:",
        "an ignored-parameter message printed where the model expects none is no violation"),
    HarnessMutant(
        "check-ignored-message-of-one-parameter", CHECK,
        r'IGNORED = r"ignoring \S+ for board',
        r'IGNORED = r"ignoring TxDescriptors for board',
        "only e1000's TxDescriptors is read as an ignored parameter: other drivers' go unseen"),
    # model/verdict.py: pair(), the patched row and the negative control
    HarnessMutant(
        "pair-no-probe-passes", VERDICT,
        "ok = (bool(patched.probes) and not patched.first()", "ok = (not patched.first()",
        "a patched run that probed nothing passes"),
    HarnessMutant(
        "pair-notes-ignored", VERDICT,
        "not patched.first() and not patched.notes", "not patched.first()",
        "a patched run with kernel trouble or a guest that stopped passes"),
    HarnessMutant(
        "pair-broken-plain-counts-caught", VERDICT,
        "bool(caught), why))", "bool(caught or plain.notes), why))",
        "a plain run that merely broke counts as the model catching the plain kernel"),
    HarnessMutant(
        "tally-mismatches-ignored", VERDICT,
        'return self.mismatches[0] if self.mismatches else ""', 'return ""',
        "boards sharing a number (a mismatch across probes) no longer break the model"),
    # mail/cover_letter.py
    HarnessMutant(
        "cover-reliability-short-accepted", COVER,
        'if stage in ("e2e", "reliability", "userspace",',
        'if stage in ("e2e", "userspace",',
        "the cover letter reports reliability's make check short forms as full depth"),
    HarnessMutant(
        "cover-tier-check-wrong-key", COVER,
        'record.get("tier") == "check"', 'record.get("gate_tier") == "check"',
        "e2e and reliability results at make check's tier are not refused"),
    HarnessMutant(
        "cover-fields-without-underscore", COVER,
        're.findall(r"@([A-Z_0-9]+)@", body)', 're.findall(r"@([A-Z]+)@", body)',
        "@E2E_TABLE@ and the like are left unfilled in the letter"),
    HarnessMutant(
        "cover-other-base-lines-kept", COVER,
        "elif tagged.group(1) == base:", "elif tagged.group(1) != base:",
        "a letter keeps the lines tagged for the other base and drops its own"),
    # mail/send_prep.py
    HarnessMutant(
        "send-open-line-mid-letter", SEND,
        'OPEN = re.compile(r"^Open before sending:.*$", re.M)',
        'OPEN = re.compile(r"^Open before sending:.*$")',
        "an 'Open before sending:' line after the first line does not stop the set"),
    HarnessMutant(
        "send-reserved-domain-first-label", SEND,
        'domain.split(".")[-1] in RESERVED', 'domain.split(".")[0] in RESERVED',
        "a sender in a reserved domain (.invalid, .test, ...) is taken for a person"),
    HarnessMutant(
        "send-placeholder-name-accepted", SEND,
        "name == PLACEHOLDER_NAME or email == PLACEHOLDER_EMAIL",
        "name == PLACEHOLDER_NAME and email == PLACEHOLDER_EMAIL",
        "the placeholder name with a real address passes as the sender"),
    HarnessMutant(
        "send-leftover-placeholder-accepted", SEND,
        "return PLACEHOLDER_EMAIL in text or PLACEHOLDER_NAME in text",
        "return PLACEHOLDER_EMAIL in text and PLACEHOLDER_NAME in text",
        "a mail still naming the placeholder (name or address alone) is written"),
    # series/tree.py
    HarnessMutant(
        "tree-prepare-drops-unexported-work", TREE,
        "if work and not force:", "if work and force:",
        "prepare throws away unexported commits and edits without --force"),
    HarnessMutant(
        "tree-unexported-commits-missed", TREE,
        "if head and applied and head != applied:", "if head and applied and head == applied:",
        "commits on branch series that export never wrote are not seen as work"),
    HarnessMutant(
        "tree-uncommitted-changes-missed", TREE,
        r'return "uncommitted changes:\n" + dirty', 'return ""',
        "uncommitted edits in the tree are not seen as work to keep"),
    HarnessMutant(
        "tree-edited-patches-not-reapplied", TREE,
        'state.get("applied") == head and state.get("digest") == digest:',
        'state.get("applied") == head:',
        "prepare calls the tree up to date after patches/ changed"),
    # checks/checkpatch.py: the accepted-findings rules
    HarnessMutant(
        "checkpatch-long-line-anywhere", CHECKPATCH,
        "if where and wide_in_base(cfg, where) else None)",
        "if where or wide_in_base(cfg, where) else None)",
        "a line over 80 columns is accepted in a file that follows 80 columns"),
    HarnessMutant(
        "checkpatch-file-path-no-added-file", CHECKPATCH,
        "if new and all(covered(cfg, f) for f in new) else None)",
        "if all(covered(cfg, f) for f in new) else None)",
        "FILE_PATH_CHANGES is accepted for a patch that adds no file"),
    HarnessMutant(
        "checkpatch-camelcase-any", CHECKPATCH,
        "if m and in_base(cfg, m.group(1), files):", "if m:",
        "any CamelCase identifier is accepted, not only one the base already has"),
    HarnessMutant(
        "checkpatch-obsolete-any-driver", CHECKPATCH,
        r'r"^WARNING:OBSOLETE: drivers/net/ethernet/8390/\S+ is marked"',
        r'r"^WARNING:OBSOLETE: \S+ is marked"',
        "OBSOLETE is accepted for every driver, not only the 8390 ones"),
    HarnessMutant(
        "checkpatch-check-findings-ignored", CHECKPATCH,
        're.match(r"(ERROR|WARNING|CHECK):", line)', 're.match(r"(ERROR|WARNING):", line)',
        "--strict's CHECK findings are not read, so they never fail a patch"),
    HarnessMutant(
        "checkpatch-typo-anywhere", CHECKPATCH,
        "return bool(where) and all(FIXES.match(line) for line in where)",
        "return bool(where)",
        "a misspelling passes wherever the patch has it, not only in a Fixes: subject"),
    # checks/bisect.py
    HarnessMutant(
        "bisect-line-number-in-key", BISECT,
        r'WARNING = re.compile(r"^(\S+?):\d+(?::\d+)?:',
        r'WARNING = re.compile(r"^(\S+?:\d+)(?::\d+)?:',
        "an old warning whose line number shifted counts as a new warning"),
    HarnessMutant(
        "bisect-delta-swapped", BISECT,
        "return found - seen", "return seen - found",
        "warnings a patch brings are missed; ones it removes are flagged"),
    HarnessMutant(
        "bisect-header-touches-all-only-if-all", BISECT,
        'if any(f.startswith("include/") for f in files):',
        'if all(f.startswith("include/") for f in files):',
        "a patch changing include/ and a driver rebuilds only the driver's targets"),
    HarnessMutant(
        "bisect-file-targets-never-present", BISECT,
        'else (tree / t).with_suffix(".c").is_file())', "else (tree / t).is_file())",
        "object targets (x.o) are dropped as absent, so single-file drivers are never built"),
    HarnessMutant(
        "bisect-unbuilt-files-pass", BISECT,
        'return [f for f in files if f.endswith(".c") and not built(cfg, f)]',
        "return []",
        "a patch whose C file no target builds passes every prefix unbuilt"),
    HarnessMutant(
        "bisect-own-object-not-counted", BISECT,
        'elif target == path[:-2] + ".o":', 'elif target == path:',
        "a file whose own object is a target is taken as unbuilt: every ALSA patch fails"),
    HarnessMutant(
        "bisect-includer-not-read", BISECT,
        "if (source.is_file() and f'#include \"{name}\"'",
        "if (source.is_file() and f'#include <{name}>'",
        "a file compiled through its includer (au88x0.c) is taken as unbuilt"),
    # lib/walkcache.py: bisect's kept steps
    HarnessMutant(
        "walkcache-key-not-chained", WALKCACHE,
        'previous = resultcache.digest(["bisect-step", previous, tree])',
        'previous = resultcache.digest(["bisect-step", setup, tree])',
        "a prefix keeps its key when a patch before it changed: its kept result is reused"),
    HarnessMutant(
        "walkcache-steps-after-failure-kept", WALKCACHE,
        "if step.row is not None and not step.row[1]:",
        "if step.row is not None and not step.row[0]:",
        "steps judged against a failure's warnings are kept and resumed after"),
    HarnessMutant(
        "walkcache-shared-past-a-change", WALKCACHE,
        "            break\n        count += 1", "            pass\n        count += 1",
        "a walk resumes after a step whose key changed"),
    HarnessMutant(
        "walkcache-fresh-ignored", WALKCACHE,
        'if os.environ.get("BOARD_NUMBERS_FRESH"):\n        return [], {}, ""',
        'if os.environ.get("BOARD_NUMBERS_FRESHER"):\n        return [], {}, ""',
        "FRESH=1 no longer walks everything"),
    # checks/callsites.py
    HarnessMutant(
        "callsites-first-problem-only", "checks/callsites.py",
        're.findall(r"^callsites: (.*)$", proc.stdout, re.M)',
        're.findall(r"^callsites: (.*)$", proc.stdout)',
        "problems spatch reports after its first output line are not read"),
    HarnessMutant(
        "callsites-spatch-failure-passes", "checks/callsites.py",
        "if proc.returncode != 0 and not problems:", "if proc.returncode != 0 and problems:",
        "spatch failing with no report counts as a clean directory"),
    # checks/kunit.py
    HarnessMutant(
        "kunit-exit-fallback-dropped", "checks/kunit.py",
        "if returncode != 0 and all(ok for _, ok, _ in rows):", "if returncode != 0 and not rows:",
        "kunit.py exiting non-zero with every case passing counts no failure"),
    HarnessMutant(
        "kunit-case-without-status-passes", "checks/kunit.py",
        'case.get("status", "ERROR")', 'case.get("status", "PASS")',
        "a KUnit case with no status in the JSON report counts as passed"),
    # guest/qmp.py
    HarnessMutant(
        "qmp-backlog-dropped", "guest/qmp.py",
        "self._backlog = self._backlog[-999:] + [ev]", "self._backlog = self._backlog[-999:]",
        "an event that arrives before anyone waits for it is lost"),
    HarnessMutant(
        "qmp-event-match-ignored", "guest/qmp.py",
        "(match is None or bool(match(ev)))", "(match is None or True)",
        "wait_event() returns the first event of the name, whatever @match says"),
    HarnessMutant(
        "qmp-error-reply-ignored", "guest/qmp.py", 'if "error" in reply:', 'if "error" in msg:',
        "a command QEMU refuses returns None instead of raising QMPError"),
    # guest/hotplug.py, guest/session.py, guest/machine.py
    HarnessMutant(
        "hotplug-any-device-deleted", "guest/hotplug.py",
        "if match_id else None)", "if not match_id else None)",
        "another device's DEVICE_DELETED is taken for this device's removal"),
    HarnessMutant(
        "hotplug-add-ignores-pattern", "guest/hotplug.py",
        "lines, m = _console(guest, probed, timeout,",
        "lines, m = _console(guest, AGENT_ADD, timeout,",
        "add() waits for the agent's line whatever the caller asked (probe failed, raw)"),
    HarnessMutant(
        "session-qmp-timeout-ignored", "guest/session.py",
        "boot_timeout=timeout if qmp_timeout is None else qmp_timeout)",
        "boot_timeout=timeout)",
        "QEMU gets the agent's timeout to open its QMP socket, not @qmp_timeout"),
    HarnessMutant(
        "session-kmemleak-scan-skipped", "guest/session.py",
        "if kernel.variant and guest.proc.poll() is None:",
        "if kernel.variant and guest.proc.poll() is not None:",
        "the debug kernel's guests end without their kmemleak scan"),
    HarnessMutant(
        "console-every-call-trace-expected", "guest/machine.py",
        'elif self._expect_stack and "Call Trace:" in line:', 'elif "Call Trace:" in line:',
        "every Call Trace is taken for an injected fault's stack, never as trouble"),
    HarnessMutant(
        "console-shell-status-ignored", "guest/machine.py",
        "return lines[:-1], int(m.group(1))", "return lines[:-1], 0",
        "a guest shell command that failed reports exit status 0"),
    # e2e/runner.py
    HarnessMutant(
        "e2e-failed-probe-number-unread", "e2e/runner.py",
        "took = logged_number(op.driver, m.group(1), added.lines)",
        "took = logged_number(op.driver, op.device, added.lines)",
        "a failed probe's 'board number' line is never found: the model's number is "
        "taken for the one it owns"),
    HarnessMutant(
        "e2e-device-id-is-the-board", "e2e/scenarios.py",
        'return f"{self.bus}:{self.addr:#x}"', "return self.device",
        "a NIC re-plugged in its bus slot under another device id is taken for a new board"),
    HarnessMutant(
        "e2e-kernel-trouble-ignored", "e2e/runner.py",
        "tally.note_trouble(guest.trouble)", "tally.note_trouble([])",
        "a BUG or WARNING during a scenario does not fail it"),
    # reliability/*.py
    HarnessMutant(
        "surprise-short-run-passes", RELIABILITY + "surprise.py",
        "if patched.cycles < cycles and", "if patched.cycles > cycles and",
        "a patched surprise run cut short with no error passes"),
    HarnessMutant(
        "surprise-errors-not-notes", RELIABILITY + "surprise.py",
        "tally.notes += patched.errors", "tally.trouble += patched.errors",
        "a patched surprise run with a QMP timeout or generator gone passes"),
    HarnessMutant(
        "faults-hit-inverted", RELIABILITY + "faults.py",
        'hit, bound = m.group(3) == "0", m.group(4) == "1"',
        'hit, bound = m.group(3) != "0", m.group(4) == "1"',
        "the FI line is misread: an untouched bind is a failure point and the walk ends early"),
    HarnessMutant(
        "async-shared-numbers-pass", RELIABILITY + "async_probe.py",
        "elif numbers != list(range(COUNTS[driver])):", "elif numbers != sorted(numbers):",
        "40 boards probed at once may share numbers (the plain kernel) unflagged"),
    HarnessMutant(
        "params-refusal-half-checked", RELIABILITY + "params.py",
        "if rc == 0 or absent == 0:", "if rc == 0 and absent == 0:",
        "a bad modprobe that succeeds, or leaves the module loaded, is taken as refused"),
    HarnessMutant(
        "loops-missing-binds-unnoted", RELIABILITY + "loops.py",
        "if len(got) != len(adds):", "if len(got) > len(adds):",
        "fewer binds reported than the loop ran is not a note: the run passes"),
    # checks/probe_counters.py: the Coccinelle rule's verdicts
    HarnessMutant(
        "probe-counters-unclassified-passes", "checks/probe_counters.py",
        'rows.append(("classified", not unclassified,',
        'rows.append(("classified", True,',
        "a hit with no row in docs/probe-counters.md passes"),
    HarnessMutant(
        "probe-counters-recall-through-a-reader", "checks/probe_counters.py",
        "return any(h.file == path or path in h.readers for h in hits)",
        "return any(h.file == path for h in hits)",
        "a converted file that only reads a slot (e1000_param.c) is missed"),
    HarnessMutant(
        "probe-counters-kept-ignored", "checks/probe_counters.py",
        "and h.key not in kept})",
        "})",
        "the hits kept on purpose in the patched tree fail it"),
    HarnessMutant(
        "probe-counters-quick-ignores-lines", "checks/probe_counters.py",
        "same = sorted(map(order, base_hits)) == sorted(map(order, parse_report(committed)))",
        "same = len(base_hits) == len(parse_report(committed))",
        "a hit moved or replaced by another passes the quick comparison"),
    # tests/__main__.py: the harness's own count
    HarnessMutant(
        "harness-skip-counts-passed", "tests/__main__.py",
        'self.rows.append((self._name(test), False, f"skipped: {reason}"',
        'self.rows.append((self._name(test), True, f"skipped: {reason}"',
        "a skipped harness test counts as passed"),
    HarnessMutant(
        "harness-failed-subtest-passes", "tests/__main__.py",
        "self.rows.append((self._name(subtest), False,",
        "self.rows.append((self._name(subtest), True,",
        "a failing subTest is recorded as a passing row"),
]
