from pathlib import Path

from gaussqp.problems import fclib_scenes

gen = Path("/tmp/bench-study/generated")
# deterministic stratified subset: every 2nd index of seed 1 (2 is coprime with the 9 scenes, so each scene gets 16-17)
for i in range(0, 300, 2):
    fclib_scenes.generate(gen, 1, seed=1, start=i, min_contacts=10, max_contacts=250, progress=print)
fclib_scenes.generate(gen, len(fclib_scenes.SCENES), seed=2, min_contacts=500, max_contacts=1500, progress=print)
