"""Deterministic synthetic corpus for the BERT pretraining benchmark.

The collection needs text that it may ship and that needs no network: no dataset hub, no
download. This module writes one, generated from a small synthetic world (towns, rivers,
trades, goods) with a fixed seed, so the same bytes come out on every machine and every run.

Format (the one BERT's create_pretraining_data.py reads): one sentence per line, a blank line
between documents. Within a document each sentence picks up an entity that the previous one
introduced (a town, then its river, then the sea that river reaches, ...), so consecutive
sentences really are related and the next-sentence objective has something to learn.

It is a load generator for a training cluster, not a language corpus: the numbers it gives
(throughput, FLOP utilisation, a falling loss) say that the cluster trains, not that the model
learns English.

    python3 bert_corpus.py corpus.txt            # regenerate the shipped file
    python3 bert_corpus.py --documents 100 -     # write a smaller one to stdout
"""

from __future__ import annotations

import argparse
import random
import sys

SEED = 20240601
DEFAULT_DOCUMENTS = 800

_SYLLABLES = (
    "al bar cor dun el fen gar hal ist jor kel lin mor nes or pal quin ros sel tor ur val wen "
    "yar zan brin cal dor est fal gol har ith kas lor mir nor ost pen rin sar tam vel"
).split()
_TOWN_SUFFIX = ["ton", "ford", "mouth", "wick", "by", "stead", "haven", "bridge", "field", "port"]
_COLOURS = ["grey", "green", "brown", "clear", "dark", "silver", "golden", "pale"]
_GOODS = [
    "wool",
    "salt",
    "timber",
    "grain",
    "copper",
    "iron",
    "cloth",
    "glass",
    "paper",
    "wine",
    "cheese",
    "leather",
    "rope",
    "pottery",
    "tea",
    "honey",
    "tin",
    "silk",
    "oil",
    "flour",
]
_TRADES = [
    "weavers",
    "smiths",
    "millers",
    "potters",
    "coopers",
    "masons",
    "tanners",
    "brewers",
    "carpenters",
    "glassmakers",
    "printers",
    "ropemakers",
    "dyers",
    "bakers",
    "fishers",
]
_BUILDINGS = ["bridge", "market", "mill", "harbour", "library", "school", "tower", "hall", "chapel"]
_SEASONS = ["spring", "summer", "autumn", "winter"]
_ADJ = ["old", "new", "busy", "quiet", "small", "large", "famous", "ancient", "narrow", "wide"]
_DIRECTIONS = ["north", "south", "east", "west"]
_NUMBER_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"]


class World:
    """A fixed random world: every fact in it is drawn once, from the generator given."""

    def __init__(self, rng: random.Random) -> None:
        names: set[str] = set()

        def name(parts: int, suffix: tuple[str, ...] = ("",)) -> str:
            # 46 stems: 2116 two-stem names, 460 one-stem town names; far more than needed.
            while True:
                candidate = "".join(rng.choice(_SYLLABLES) for unused in range(parts))
                candidate = candidate.capitalize() + rng.choice(suffix)
                if candidate not in names:
                    names.add(candidate)
                    return candidate

        self.seas = [name(2) + " Sea" for unused in range(6)]
        self.rivers = [name(2) for unused in range(30)]
        self.river_sea = {r: rng.choice(self.seas) for r in self.rivers}
        self.river_colour = {r: rng.choice(_COLOURS) for r in self.rivers}
        self.river_direction = {r: rng.choice(_DIRECTIONS) for r in self.rivers}
        self.towns = [name(1, tuple(_TOWN_SUFFIX)) for unused in range(160)]
        self.town_river = {t: rng.choice(self.rivers) for t in self.towns}
        self.town_trade = {t: rng.choice(_TRADES) for t in self.towns}
        self.town_building = {t: rng.choice(_BUILDINGS) for t in self.towns}
        self.town_adj = {t: rng.choice(_ADJ) for t in self.towns}
        self.trade_goods = {tr: rng.sample(_GOODS, 2) for tr in _TRADES}
        self.people = [name(2) for unused in range(120)]
        self.person_trade = {p: rng.choice(_TRADES) for p in self.people}
        self.person_town = {p: rng.choice(self.towns) for p in self.people}

    def towns_on(self, river: str) -> list[str]:
        return [t for t in self.towns if self.town_river[t] == river]


def _town_sentences(w: World, rng: random.Random, town: str) -> tuple[list[str], str]:
    river = w.town_river[town]
    trade = w.town_trade[town]
    good = rng.choice(w.trade_goods[trade])
    building = w.town_building[town]
    choices = [
        [
            f"{town} is a {w.town_adj[town]} town on the {river} river.",
            f"Most people in {town} work as {trade}.",
            f"The {trade} of {town} are known for their {good}.",
        ],
        [
            f"The {building} of {town} stands near the {river}.",
            f"In {rng.choice(_SEASONS)} the {building} is full of {trade} and traders.",
        ],
        [
            f"Every {rng.choice(_SEASONS)} {town} holds a fair for {good}.",
            f"Traders bring {good} to {town} by boat along the {river}.",
        ],
    ]
    out = rng.choice(choices)
    return out, river


def _river_sentences(w: World, rng: random.Random, river: str) -> tuple[list[str], str]:
    sea = w.river_sea[river]
    towns = w.towns_on(river)
    out = [f"The {river} is a {w.river_colour[river]} river that flows {w.river_direction[river]} into the {sea}."]
    if len(towns) >= 2:
        a, b = rng.sample(towns, 2)
        out.append(f"Boats on the {river} sail from {a} to {b} in {rng.choice(_NUMBER_WORDS)} days.")
        nxt = b
    elif towns:
        nxt = towns[0]
        out.append(f"The only town on the {river} is {nxt}.")
    else:
        nxt = rng.choice(w.towns)
        out.append(f"No town stands on the {river}, but {nxt} is close to it.")
    return out, nxt


def _sea_sentences(w: World, rng: random.Random, sea: str) -> tuple[list[str], str]:
    rivers = [r for r in w.rivers if w.river_sea[r] == sea] or w.rivers
    river = rng.choice(rivers)
    return [
        f"Ships on the {sea} carry {rng.choice(_GOODS)} and {rng.choice(_GOODS)}.",
        f"The {river} is one of the rivers that reach the {sea}.",
    ], river


def _person_sentences(w: World, rng: random.Random, person: str) -> tuple[list[str], str]:
    town = w.person_town[person]
    trade = w.person_trade[person]
    good = rng.choice(w.trade_goods[trade])
    return [
        f"{person} was one of the {trade} of {town}.",
        f"{person} sold {good} at the market in {town} for {rng.choice(_NUMBER_WORDS)} years.",
    ], town


def document(w: World, rng: random.Random) -> list[str]:
    """One document: a walk town -> river -> (sea ->) river -> town ..., 6 to 24 sentences."""
    target = rng.randint(6, 24)
    sentences: list[str] = []
    kind, entity = rng.choice([("town", rng.choice(w.towns)), ("person", rng.choice(w.people))])
    while len(sentences) < target:
        if kind == "town":
            new, entity = _town_sentences(w, rng, entity)
            kind = "river"
        elif kind == "river":
            new, entity = _river_sentences(w, rng, entity)
            if rng.random() < 0.25:
                entity, kind = w.river_sea[w.town_river[entity]], "sea"
            else:
                kind = "town"
        elif kind == "sea":
            new, entity = _sea_sentences(w, rng, entity)
            kind = "river"
        else:
            new, entity = _person_sentences(w, rng, entity)
            kind = "town"
        sentences.extend(new)
    return sentences[:target]


def generate(documents: int = DEFAULT_DOCUMENTS, seed: int = SEED) -> str:
    """The whole corpus as one string; the same arguments always give the same bytes."""
    rng = random.Random(seed)
    world = World(rng)
    return "\n\n".join("\n".join(document(world, rng)) for unused in range(documents)) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="file to write, '-' for stdout")
    parser.add_argument("--documents", type=int, default=DEFAULT_DOCUMENTS)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    text = generate(args.documents, args.seed)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
