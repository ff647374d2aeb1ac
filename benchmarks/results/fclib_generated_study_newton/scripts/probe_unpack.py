"""Time the study's unpack (gaussqp/1 dict -> ContactProblem) on one problem, with a profile."""
import sys, time, cProfile, pstats
sys.path.insert(0, "/work/wt-bench")
from gaussqp.studies.sets import parse_set
from gaussqp.studies.runner import pack, unpack
name = sys.argv[1]
data = pack(next(pp for pid, pp in parse_set("/tmp/bench-study/set") if pid == name))
t = time.perf_counter(); p = unpack(data); print(f"unpack {time.perf_counter()-t:.3f} s", flush=True)
cProfile.run("unpack(data)", "/tmp/bench-study/unpack.prof")
pstats.Stats("/tmp/bench-study/unpack.prof").sort_stats("cumulative").print_stats(18)
