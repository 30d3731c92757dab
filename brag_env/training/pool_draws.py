"""The opponents of many new episodes drawn in one compiled loop (Numba).

``draw_opponents`` makes ``OpponentPool.draw``'s draws (``brag_env.selfplay``) table after
table, seat after seat, from the run's own ``np.random.Generator``: ``random()`` for the
snapshot coin and ``integers(0, k)`` for the pick give NumPy's stream and move the caller's
generator on, so a run draws exactly what the Python loop drew. It stops at a spec whose agent
is not built yet, because building one draws its seed from the same generator before the next
opponent is drawn: the caller builds it and calls again from the next seat. Compiled code is
cached on disk (``cache=True``).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def draw_opponents(learners, p, baselines, snapshots, snapshot_prob, latest, ready, rng, out, at):
    """Fill ``out[j, seat]`` (spec ids) for every seat but ``learners[j]``, from the flat
    position ``at`` = ``j * p + seat`` on; ``baselines``/``snapshots``: the pool's entries as
    spec ids. Returns the position of a drawn spec with ``ready[spec]`` False (its agent is to
    be built before the next draw), or -1 once every seat is drawn."""
    for pos in range(at, learners.size * p):
        j, seat = pos // p, pos % p
        if seat == learners[j]:
            continue
        if snapshots.size and rng.random() < snapshot_prob:
            spec = snapshots[-1] if latest else snapshots[rng.integers(0, snapshots.size)]
        else:
            spec = baselines[rng.integers(0, baselines.size)]
        out[j, seat] = spec
        if not ready[spec]:
            return pos
    return -1
