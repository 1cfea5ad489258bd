"""Benchmarks of the Python binding against rbloom and pybloom-live (bench/JOURNAL.md, "Python
binding (issue 16)").

    python bindings/python/bench/bench.py [--sizes 1000000,10000000] [--repeat 3] [--quick]

Every figure is the best of --repeat runs, in ns per key, and every ratio is taken between figures
of the same run (absolute times drift on a shared machine). Needs numpy, rbloom and pybloom-live
(ci.sh does not run this; `pip install rbloom==1.5.4 pybloom-live==4.0.0 numpy`).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from typing import Any

import numpy as np
import pybloom_live
import rbloom

import pyabloom as abloom

FPR = 0.01


def best(repeat: int, setup: Callable[[], Any], run: Callable[[Any], object]) -> float:
    """The fastest of `repeat` timings of run(setup()), in seconds (setup is not timed)."""
    times = []
    for _ in range(repeat):
        state = setup()
        t0 = time.perf_counter()
        run(state)
        times.append(time.perf_counter() - t0)
    return min(times)


def const(x: Any) -> Callable[[], Any]:
    """A setup function returning x (binds it now, not when called)."""
    return lambda: x


def shared(f: abloom.BloomFilter) -> abloom.BloomFilter:
    """The filter in writer_mode "shared" (atomic adds); the default "auto" is exclusive here,
    where one thread does every write."""
    f.writer_mode = "shared"
    return f


def ns(seconds: float, n: int) -> float:
    return seconds / n * 1e9


def add_loop(f: Any, keys: list[Any]) -> None:
    add = f.add
    for k in keys:
        add(k)


def contains_loop(f: Any, keys: list[Any]) -> int:
    found = 0
    for k in keys:
        if k in f:
            found += 1
    return found


def single_keys(n: int, repeat: int, pybloom_keys: int) -> None:
    keys = [f"key:{i}".encode() for i in range(n)]
    mk: dict[str, Callable[[], Any]] = {
        "abloom": lambda: abloom.BloomFilter(n, FPR),
        "rbloom": lambda: rbloom.Bloom(n, FPR),
    }
    print(f"\n## single keys, {n:,} bytes keys, filters sized for {n:,} at {FPR:.0%}")
    res: dict[str, tuple[float, float]] = {}
    for name, make in mk.items():
        t_add = best(repeat, make, lambda f: add_loop(f, keys))
        full = make()
        add_loop(full, keys)
        t_in = best(repeat, const(full), lambda f: contains_loop(f, keys))
        res[name] = (ns(t_add, n), ns(t_in, n))
    # pybloom-live is pure Python (~100x slower): timed on the first keys only, into a filter of
    # the full size.
    sub = keys[:pybloom_keys]
    pb = best(
        1, lambda: pybloom_live.BloomFilter(capacity=n, error_rate=FPR), lambda f: add_loop(f, sub)
    )
    pf = pybloom_live.BloomFilter(capacity=n, error_rate=FPR)
    add_loop(pf, sub)
    pin = best(1, lambda: pf, lambda f: contains_loop(f, sub))
    res["pybloom-live"] = (ns(pb, len(sub)), ns(pin, len(sub)))
    a_add, a_in = res["abloom"]
    print("| library | add ns/key | `in` ns/key | abloom add speed-up | abloom `in` speed-up |")
    print("|---|---|---|---|---|")
    for name, (t_add_ns, t_in_ns) in res.items():
        print(
            f"| {name} | {t_add_ns:.1f} | {t_in_ns:.1f} "
            f"| {t_add_ns / a_add:.2f}x | {t_in_ns / a_in:.2f}x |"
        )


def batches(n: int, repeat: int) -> None:
    keys = [f"key:{i}".encode() for i in range(n)]
    print(f"\n## batches over a list of {n:,} bytes keys")
    a_upd = best(repeat, lambda: abloom.BloomFilter(n, FPR), lambda f: f.update(keys))
    r_upd = best(repeat, lambda: rbloom.Bloom(n, FPR), lambda f: f.update(keys))
    a_loop = best(repeat, lambda: abloom.BloomFilter(n, FPR), lambda f: add_loop(f, keys))
    a_excl = best(repeat, lambda: shared(abloom.BloomFilter(n, FPR)), lambda f: f.update(keys))
    af = abloom.BloomFilter(n, FPR)
    af.update(keys)
    rf = rbloom.Bloom(n, FPR)
    rf.update(keys)
    a_cm = best(repeat, lambda: af, lambda f: f.contains_many(keys))
    r_comp = best(repeat, lambda: rf, lambda f: [k in f for k in keys])
    r_map = best(repeat, lambda: rf, lambda f: list(map(f.__contains__, keys)))
    r_best = min(r_comp, r_map)
    print("| operation | ns/key | rbloom's fastest / abloom |")
    print("|---|---|---|")
    print(f"| abloom `update(keys)` | {ns(a_upd, n):.1f} | {r_upd / a_upd:.2f}x |")
    print(f"| abloom `for k in keys: f.add(k)` | {ns(a_loop, n):.1f} | {r_upd / a_loop:.2f}x |")
    print(
        f"| abloom `update(keys)`, writer_mode shared | {ns(a_excl, n):.1f} "
        f"| {r_upd / a_excl:.2f}x |"
    )
    print(f"| rbloom `update(keys)` | {ns(r_upd, n):.1f} | |")
    print(f"| abloom `contains_many(keys)` | {ns(a_cm, n):.1f} | {r_best / a_cm:.2f}x |")
    print(f"| rbloom `[k in f for k in keys]` | {ns(r_comp, n):.1f} | |")
    print(f"| rbloom `list(map(f.__contains__, keys))` | {ns(r_map, n):.1f} | |")


def numpy_keys(n: int, repeat: int) -> None:
    arr = np.random.default_rng(1).integers(0, 2**63, size=n, dtype=np.uint64)
    as_list = arr.tolist()
    print(f"\n## a NumPy uint64 array of {n:,} keys")
    t_many = best(repeat, lambda: abloom.BloomFilter(n, FPR), lambda f: f.add_many(arr))
    t_list = best(repeat, lambda: abloom.BloomFilter(n, FPR), lambda f: add_loop(f, as_list))
    t_excl = best(repeat, lambda: shared(abloom.BloomFilter(n, FPR)), lambda f: f.add_many(arr))
    t_excl_list = best(
        repeat, lambda: shared(abloom.BloomFilter(n, FPR)), lambda f: add_loop(f, as_list)
    )
    t_np = best(1, lambda: abloom.BloomFilter(n, FPR), lambda f: add_loop(f, arr))  # type: ignore[arg-type]
    f = abloom.BloomFilter(n, FPR)
    f.add_many(arr)
    c_many = best(repeat, lambda: f, lambda f: f.contains_many(arr))
    c_list = best(repeat, lambda: f, lambda f: [k in f for k in as_list])
    c_np = best(1, lambda: f, lambda f: [k in f for k in arr])
    print("| operation | ns/key | loop / batch |")
    print("|---|---|---|")
    print(f"| `add_many(arr)` | {ns(t_many, n):.1f} | |")
    print(f"| `for k in arr.tolist(): f.add(k)` | {ns(t_list, n):.1f} | {t_list / t_many:.1f}x |")
    print(
        f"| `for k in arr: f.add(k)` (NumPy scalars) | {ns(t_np, n):.1f} | {t_np / t_many:.1f}x |"
    )
    print(f"| `add_many(arr)`, writer_mode shared | {ns(t_excl, n):.1f} | |")
    print(
        f"| `for k in arr.tolist(): f.add(k)`, shared | {ns(t_excl_list, n):.1f} "
        f"| {t_excl_list / t_excl:.1f}x |"
    )
    print(f"| `contains_many(arr)` | {ns(c_many, n):.1f} | |")
    print(f"| `[k in f for k in arr.tolist()]` | {ns(c_list, n):.1f} | {c_list / c_many:.1f}x |")
    print(f"| `[k in f for k in arr]` (NumPy scalars) | {ns(c_np, n):.1f} | {c_np / c_many:.1f}x |")


def open_50(path: str) -> None:
    for _ in range(50):
        with abloom.BloomFilter.open(path) as m:
            assert "k" in m


def open_times(repeat: int, big_gib: float) -> None:
    print("\n## BloomFilter.open(path) (mode 'r', no checksum check) + one `in`")
    print("| file | bytes | open + `in` + close, best of 50 x repeat |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory(dir=os.environ.get("ABLOOM_BENCH_DIR")) as d:
        for label, target in (("16 MiB", 16 * 2**20), (f"{big_gib:g} GiB", int(big_gib * 2**30))):
            bits_per_key = abloom.BloomFilter.plan(1_000_000, FPR).bits_per_key
            cap = int(target * 8 / bits_per_key)
            path = os.path.join(d, "f.abloom")
            with abloom.BloomFilter(cap, FPR) as f:
                f.add("k")
                f.save(path)
            size = os.path.getsize(path)

            t = best(repeat, const(path), open_50) / 50
            print(f"| {label} | {size:,} | {t * 1e6:.1f} us |")
            os.unlink(path)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--batch", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pybloom-keys", type=int, default=200_000)
    ap.add_argument("--big-gib", type=float, default=1.0)
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.quick:
        sizes, a.batch, a.repeat, a.pybloom_keys, a.big_gib = [10_000], 10_000, 1, 1000, 1 / 32
    cpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    model = next(
        (ln.split(":", 1)[1].strip() for ln in cpu.splitlines() if ln.startswith("Model name")), "?"
    )
    print(
        f"# abloom {abloom.__version__} (library {abloom.library_version}, "
        f"kernel {abloom.isa()}), ",
        end="",
    )
    print(f"rbloom {version('rbloom')}, pybloom-live {version('pybloom-live')}")
    print(
        f"# Python {platform.python_version()}, numpy {np.__version__}, "
        f"CPU: {model}, {os.cpu_count()} CPUs"
    )
    for n in sizes:
        single_keys(n, a.repeat, a.pybloom_keys)
    batches(a.batch, a.repeat)
    numpy_keys(a.batch, a.repeat)
    open_times(a.repeat, a.big_gib)


if __name__ == "__main__":
    main()
