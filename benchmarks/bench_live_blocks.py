"""The CPU of drawing the club table's live blocks, beside another source tree.

    .venv/bin/python benchmarks/bench_live_blocks.py [--pairs 10] [--passes 5] [--against OTHER/src]

Plays the same seeded tables in each measurement (the wizard's and the joker's paytables,
a player betting on a row and a band, three rounds dealt to the end and settled), takes
the table at every version, and draws every live block of the phone's and the dealer's
page at each version in English, Russian and Georgian (``TableRenderer.blocks``: no block
kept from an earlier version), timing the thread's CPU of each of ``--passes`` passes
after one to warm up, and keeping the least (as ``timeit`` does: other work on the
host only ever adds to a pass). Each measurement is a process of its own; ``--against SRC`` runs every other
one from another checkout's ``src`` (say ``git archive main`` unpacked), alternating which
side goes first, and checks that both drew the same HTML (the table's code, the deck's
commitment and the bet form's fresh key set aside). It prints each side's median CPU per
pass, their ratio, and in how many pairs this tree drew faster.

This is the live render alone — the part of a table request that a bare request does not
have; ``bench_web_load.py`` measures the whole server (its noise on a shared host is
larger than a change of the drawing).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGS = ("en", "ru", "ka")
PAYTABLES = ("wizard", "joker")
SEED = 5
_FRESH = (re.compile(r'name="key" value="[0-9a-f]+"'), re.compile(r"[0-9a-f]{64}"))


def measure(passes: int) -> dict[str, object]:
    """In this process: CPU ms per pass over every block at every version, and a digest of
    the HTML drawn."""
    from andar_bahar.club.service import TableService
    from andar_bahar.engine.paytables import find_paytable
    from andar_bahar.engine.rules import find_procedure
    from andar_bahar.storage import Storage
    from andar_bahar.web.http.templating import make_environment
    from andar_bahar.web.live.blocks import LIVE_PAGES
    from andar_bahar.web.live.protocol import Viewer
    from andar_bahar.web.live.renderer import TableRenderer

    work = []
    for name in PAYTABLES:
        service = TableService(Storage.open("sqlite://"), rng=random.Random(SEED))
        table = service.create_table(
            name="Bench", kind="betting", pin="246813",
            procedure=find_procedure("classic"), paytable=find_paytable(name),
        )  # fmt: skip
        code, dealer = table.code, table.dealer_token
        token = service.join(code, service.admit_player(code, dealer, "Asha", "500"))
        renderer = TableRenderer(service, make_environment())
        snapshots = []
        for number in range(3):
            service.open_round(code, dealer)
            snapshots.append(renderer.read(code))
            for spot, stake in (("andar", "10"), ("cards:1-5", "1")):
                service.place_bet(code, token, spot, stake, key=f"{number}{spot}")
                snapshots.append(renderer.read(code))
            while service.deal(code, dealer).status == "open":
                snapshots.append(renderer.read(code))
            service.settle(code, dealer)
            snapshots.append(renderer.read(code))
        seat = service.player_seat(code, token)
        assert seat is not None
        viewers = [
            Viewer(page, "dealer" if page == "dealer" else "player", lang,
                   *(seat if page == "player" else (None, None)))
            for page in ("player", "dealer") for lang in LANGS
        ]  # fmt: skip
        work.append((code, renderer, snapshots, viewers))

    def one_pass() -> list[str]:
        drawn = []
        for code, renderer, snapshots, viewers in work:
            for snapshot in snapshots:
                for viewer in viewers:
                    page = LIVE_PAGES[viewer.page]
                    blocks = renderer.blocks(snapshot, viewer, page.shared + page.private)
                    drawn.extend(_plain(html, code) for html in blocks.values())
        return drawn

    digest = hashlib.sha256("\0".join(one_pass()).encode()).hexdigest()
    spent = []
    for _ in range(passes):
        started = time.thread_time()
        one_pass()
        spent.append((time.thread_time() - started) * 1000)
    return {"ms": round(min(spent), 2), "digest": digest}  # the least disturbed pass


def _plain(html: str, code: str) -> str:
    """*html* less what differs from one process to the next (code, commitment, bet key)."""
    html = _FRESH[0].sub("", html)
    return _FRESH[1].sub("H", html).replace(code, "CODE")


def _child(src: Path, passes: int) -> dict[str, object]:
    environment = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, str(Path(__file__).resolve()), "--child", "--passes", str(passes)]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--against", help="another checkout's src folder to compare with")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.passes)))
        return
    sides = {"this": HERE.parent / "src"}
    if args.against:
        sides["against"] = Path(args.against).resolve()
    runs: dict[str, list[dict[str, object]]] = {side: [] for side in sides}
    for pair in range(args.pairs):
        order = list(sides) if pair % 2 == 0 else list(reversed(sides))
        for side in order:
            runs[side].append(_child(sides[side], args.passes))
    mine = [float(str(r["ms"])) for r in runs["this"]]
    print(f"this tree: median {statistics.median(mine):.1f} ms of CPU a pass (each run's best) "
          f"({min(mine):.1f}–{max(mine):.1f}), {args.pairs} runs")  # fmt: skip
    if args.against:
        other = [float(str(r["ms"])) for r in runs["against"]]
        saved = [b - a for a, b in zip(mine, other, strict=True)]
        same = {str(r["digest"]) for side in runs.values() for r in side}
        print(f"--against: median {statistics.median(other):.1f} ms "
              f"({min(other):.1f}–{max(other):.1f}); ratio "
              f"{statistics.median(mine) / statistics.median(other):.2f}; this tree faster in "
              f"{sum(s > 0 for s in saved)} of {args.pairs} pairs (saved "
              f"{min(saved):.1f} to {max(saved):.1f} ms a pass); "
              f"the same HTML: {'yes' if len(same) == 1 else 'NO'}")  # fmt: skip


if __name__ == "__main__":
    main()
