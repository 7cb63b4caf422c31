// SPDX-License-Identifier: GPL-2.0
// The call sites of board numbers (drivers/base/board_numbers.c), checked
// in a converted driver: the number devm_board_number_get() returned is
// the one, and the only one, that every board_slot_value(),
// board_param_applies() and board_slot_applies() of the same board
// numbers looks up. A driver that numbers what it does not bind
// (tuner-simple's shared tuners, 3c59x's Compaq board) takes the number
// with board_number_get() and gives that number back with
// board_number_put().
//
// Facts are collected per match and judged in the finalize rule, over
// all the files of one driver given to one spatch run, in an order where
// the files that define the driver's wrappers of devm_board_number_get()
// and its calls of board_number_put() come first. checks/callsites.py
// runs it; it prints one "callsites:" line per problem and none when the
// driver is right.
//
// Options: --no-includes --include-headers
// Requires: 1.1.1

virtual report

@initialize:python@
@@
import re
gets = []      # (board numbers, function, variable, file, by hand)
stores = []    # (function, field, value)
aliases = []   # (function, variable, field)
lookups = []   # (board numbers, function, number, file, line)
releases = []  # (board numbers, function, number): board_number_put()
params = {}    # function: {index: parameter name}
callargs = []  # (caller, callee, call site, index, argument)
wrappers = set()
statics = set()  # static variables of the files

def is_wrapper(name):
    return any(w == name for w, bn, hand in wrappers)

def is_releaser(name):
    return any(fn == name for b, fn, e in releases)

def is_user(name):
    """A function that looks a slot up or releases one: whose number
    arguments are followed back to its callers."""
    return any(fn == name for b, fn, e, fl, ln in lookups) or is_releaser(name)

def where(p):
    return p[0].current_element, p[0].file, p[0].line

// The number, as probe takes it: from the helper, or from a function of
// the driver that returns the helper's result.
@wrap@
identifier W, BN;
expression D;
@@
W(...) {
<+...
return devm_board_number_get(D, &BN);
...+>
}

@script:python@
w << wrap.W;
bn << wrap.BN;
@@
wrappers.add((w, bn, False))

// The same for a number taken by hand (tuner-simple's simple_tuner_number()).
@wraphand@
identifier W, BN;
expression E;
@@
W(...) {
<+...
return board_number_get(&BN, E);
...+>
}

@script:python@
w << wraphand.W;
bn << wraphand.BN;
@@
wrappers.add((w, bn, True))

@get@
expression N, D;
identifier BN;
position p;
@@
N = devm_board_number_get@p(D, &BN)

@script:python@
n << get.N;
bn << get.BN;
p << get.p;
@@
fn, fl, ln = where(p)
gets.append((bn, fn, n, fl, False))

@byhand@
expression N, E;
identifier BN;
position p;
@@
N = board_number_get@p(&BN, E)

@script:python@
n << byhand.N;
bn << byhand.BN;
p << byhand.p;
@@
fn, fl, ln = where(p)
gets.append((bn, fn, n, fl, True))

// A number taken by hand for the module's lifetime may be kept in a
// static variable of the file (3c59x's Compaq board), read where it is
// given back.
@staticvar@
type T;
identifier G;
expression E;
@@
static T G = E;

@script:python@
g << staticvar.G;
@@
statics.add(g)

@getcall@
expression N;
identifier W : script:python() { is_wrapper(W) };
position p;
@@
N = W@p(...)

@script:python@
n << getcall.N;
w << getcall.W;
p << getcall.p;
@@
for wr, bn, hand in list(wrappers):
    if wr == w:
        fn, fl, ln = where(p)
        gets.append((bn, fn, n, fl, hand))

@store@
expression X, V;
identifier F;
position p;
@@
(
X->F = V@p
|
X.F = V@p
)

@script:python@
f << store.F;
v << store.V;
p << store.p;
@@
stores.append((where(p)[0], f, v))

@alias@
identifier V, F;
expression X;
type T;
position p;
@@
(
T V@p = X->F;
|
V@p = X->F
)

@script:python@
v << alias.V;
f << alias.F;
p << alias.p;
@@
aliases.append((where(p)[0], v, f))

@lookup@
expression D, E;
identifier BN;
position p;
@@
(
board_slot_value@p(D, &BN, E, ...)
|
board_param_applies@p(D, &BN, E, ...)
|
board_slot_applies@p(D, &BN, E, ...)
)

@script:python@
bn << lookup.BN;
e << lookup.E;
p << lookup.p;
@@
fn, fl, ln = where(p)
lookups.append((bn, fn, e, fl, ln))

@release@
expression E;
identifier BN;
position p;
@@
board_number_put@p(&BN, E)

@script:python@
bn << release.BN;
e << release.E;
p << release.p;
@@
releases.append((bn, where(p)[0], e))

// Numbers passed down as arguments: the parameters of the functions that
// look slots up or release them, and the arguments of every call of
// those, judged together at the end (one level: a number handed through
// a function that neither looks up nor releases is not followed).
@fdef@
identifier F : script:python() { is_user(F) };
identifier P;
parameter list[n] PS;
type T;
@@
F(PS, T P, ...) { ... }

@script:python@
f << fdef.F;
pn << fdef.P;
n << fdef.n;
@@
params.setdefault(f, {})[int(n)] = pn

@fcall@
identifier F : script:python() { is_user(F) };
expression list[n] ES;
expression A;
position p;
@@
F@p(ES, A, ...)

@script:python@
f << fcall.F;
a << fcall.A;
n << fcall.n;
p << fcall.p;
@@
callargs.append((where(p)[0], f, p[0].line + ":" + p[0].column, int(n), a))

@finalize:python@
@@
# An upper-case constant passed for the number: a deliberate "no slot".
NO_SLOT = re.compile(r"[A-Z][A-Z0-9_]*")
problems = []
for bn in sorted({g[0] for g in gets} | {l[0] for l in lookups} | {r[0] for r in releases}):
    mine = [(fn, n) for b, fn, n, fl, h in gets if b == bn]
    probe_files = {fl for b, fn, n, fl, h in gets if b == bn and h}
    if not mine:
        problems.append("%s: looked up or released, but no number is taken with devm_board_number_get() or board_number_get()" % bn)
        continue
    # Variables holding the number (in their function) and fields it is
    # stored in, grown together until nothing changes: a number stored in
    # a field, read back into a variable, or passed down as an argument
    # (by every call of the function) is the number still.
    held = set(mine)
    fields = {m.group(1) for fn, n in mine
              for m in [re.search(r"(?:->|\.)\s*(\w+)$", n)] if m}

    byhand = {n for b, fn, n, fl, h in gets if b == bn and h}

    def ok(fn, e):
        e = e.strip()
        if (fn, e) in held or (e in byhand and e in statics):
            return True
        m = re.fullmatch(r"(.*?)(?:->|\.)\s*(\w+)", e)
        if not m or m.group(2) not in fields:
            return False
        # The object may be a call (ne2k_pci_priv(dev)->board), not arithmetic.
        return not re.search(r"[-+*/%]", m.group(1).replace("->", ""))

    def passed(fn, index):
        args = [(caller, a) for caller, callee, site, i, a in callargs
                if callee == fn and i == index]
        return bool(args) and all(ok(caller, a) or NO_SLOT.fullmatch(a.strip())
                                  for caller, a in args)

    changed = True
    while changed:
        before = (len(held), len(fields))
        fields |= {f for fn, f, v in stores if ok(fn, v)}
        held |= {(fn, v) for fn, v, f in aliases if f in fields}
        for fn, names in params.items():
            for index, name in names.items():
                if (fn, name) not in held and passed(fn, index):
                    held.add((fn, name))
        changed = (len(held), len(fields)) != before

    for b, fn, e, fl, ln in lookups:
        if b == bn and not ok(fn, e):
            problems.append("%s:%s: %s() looks up %s with %s, not the number the board was given" % (fl, ln, fn, bn, e))
    rel = [(fn, e) for b, fn, e in releases if b == bn]
    for fn, e in rel:
        if not ok(fn, e):
            problems.append("%s() releases %s with %s, not the board's number" % (fn, bn, e))
    # A number taken by hand is given back by hand: devres gives the
    # others back.
    if probe_files and not rel:
        problems.append("%s: no board_number_put(): a number taken with board_number_get() is never given back" % bn)
for p in problems:
    print("callsites: " + p)
