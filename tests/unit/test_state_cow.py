"""The shell state's copy-on-write fork (``ShellState.subshell``): cheap, yet a deep copy in
behaviour, with each variable's memory charge kept by the shell that pays for it."""

from __future__ import annotations

import gc
import time

from cowguard import watching

from vshell import Sandbox
from vshell.interp.state import Frame, ShellState
from vshell.vfs.memory import MemoryBudget

BIG = 1 << 17  # above the size from which a value is charged (interp.limits.THRESHOLD)


def _state() -> ShellState:
    st = ShellState()
    st.set("x", "1")
    st.set_array("a", {0: "p", 1: "q"})
    st.set_array("m", {"k": "v"}, assoc=True)
    st.frames.append(Frame("f", {}, ["arg"]))
    st.set("loc", "in", local=True)
    return st


def test_a_fork_shares_every_variable_and_copies_none() -> None:
    st = _state()
    child = st.subshell()
    assert child.globals is not st.globals and child.frames[0].locals is not st.frames[0].locals
    assert all(child.globals[k] is v for k, v in st.globals.items())
    assert child.frames[0].locals["loc"] is st.frames[0].locals["loc"]
    assert child.owner is not st.owner  # and neither owns what they share
    assert all(v.owner is not st.owner and v.owner is not child.owner
               for v in st.globals.values())


def test_changes_in_either_direction_stay_on_their_side() -> None:
    for changer in ("parent", "child"):
        st = _state()
        child = st.subshell()
        side, other = (st, child) if changer == "parent" else (child, st)
        side.set("x", "2")
        side.set("x", "+", append=True)
        side.set_element("a", 1, "Z")
        side.set_element("m", "k", "Z")
        side.set_array("a", {0: "s"}, append=True)
        side.set("loc", "changed")
        side.unset("m")
        v = side.writable("x")
        assert v is not None
        v.attrs.add("x")
        assert (side.get("x"), side.lookup("a").value, side.get("loc")) == (  # type: ignore[union-attr]
            "2+", {0: "p", 1: "Z", 2: "s"}, "changed")
        assert side.lookup("m") is None and "x" in side.exported()
        assert other.get("x") == "1" and other.lookup("a").value == {0: "p", 1: "q"}  # type: ignore[union-attr]
        assert other.lookup("m").value == {"k": "v"} and other.get("loc") == "in"  # type: ignore[union-attr]
        assert "x" not in other.exported()


def test_a_variable_is_copied_once_per_fork_then_changed_in_place() -> None:
    st = _state()
    before = st.globals["x"]
    st.subshell()
    st.set("x", "2")
    after = st.globals["x"]
    assert after is not before and before.value == "1"
    st.set("x", "3")
    assert st.globals["x"] is after  # now this state's own: no second copy


def test_the_charge_of_a_big_value_stays_with_the_shell_that_made_it() -> None:
    budget = MemoryBudget(64 * BIG)
    st = ShellState()
    st.memory = budget
    st.set("big", "a" * BIG)
    assert budget.used == BIG
    child = st.subshell()
    assert child.globals["big"] is not st.globals["big"]  # a charged variable is not shared
    assert child.globals["big"].value is st.globals["big"].value  # (its text is)
    assert budget.used == BIG
    child.set("big", "b", append=True)  # the child's copy: charged as its own new value
    assert budget.used == 2 * BIG + 1
    del child
    assert budget.used == BIG  # the parent's value still pays
    child = st.subshell()
    st.unset("big")  # the charge ends with the parent's variable, the child alive or not
    assert budget.used == 0 and child.get("big") == "a" * BIG
    st.set("big", "a" * BIG)
    st.subshell()
    st.set("small", "1")
    st.set_element("arr", 0, "1")
    st.set("big", "c", append=True)  # the parent copies and keeps paying, for the new size
    time.sleep(0)
    budget.try_change(0)  # settle what finalizers gave back
    assert budget.used == BIG + 1
    st.unset("big")
    budget.try_change(0)
    assert budget.used == 0


def _settled(sb: Sandbox) -> int:
    """The bytes held once the finished subshells are collected (their states are in
    reference cycles) and what their finalizers gave back is counted."""
    gc.collect()
    sb.memory.try_change(0)
    return sb.memory.used


def test_session_charges_stay_right_across_forks() -> None:
    with Sandbox(memory_limit=64 << 20, timeout=60) as sb:
        for tail in ("", " | tail -1"):  # the loop in this shell, then in a pipeline stage
            res = sb.exec('x=$(head -c 4M /dev/zero | tr "\\0" a); for i in 1 2 3; do '
                          'y=$(echo $i); x+=b; ( x+=c ); { x+=d; } & wait; echo ${#x}; done'
                          + tail)
            assert res.stdout.split()[-1] == b"4194307", res.stderr
            assert _settled(sb) == (4 << 20) + (3 if not tail else 0)
        res = sb.exec("unset x y; echo done")
        assert res.stdout == b"done\n" and _settled(sb) == 0


def test_an_arithmetic_value_that_forks_changes_only_this_shell() -> None:
    # an integer variable's value is evaluated as arithmetic, which here runs a $( ) (vshell
    # expands it; bash refuses the text): the assignment lands after that fork
    with watching(), Sandbox(timeout=30) as sb:
        res = sb.exec("declare -i n=1; n='n + $(echo 2)'; echo $n; declare -a arr; "
                      "arr[$(echo 1)]=x; printf -v 'arr[$(echo 2)]' %s y; echo ${arr[@]}")
        assert res.stdout == b"3\nx y\n", res.stderr


def test_a_session_job_keeps_the_state_it_started_with() -> None:
    with watching(), Sandbox(timeout=30) as sb:
        sb.exec("x=before; a=(1 2); declare -A m=([k]=v)")
        job = sb.start_job('sleep 0.3; echo "$x ${a[@]} ${m[k]}"')
        sb.exec("x=after; a[0]=9; m[k]=w; unset a")
        assert job.wait(10)
        assert job.read()["output"].strip() == "before 1 2 v"
        assert sb.exec('echo "$x ${a[@]} ${m[k]}"').stdout == b"after  w\n"
