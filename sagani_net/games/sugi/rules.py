"""The Sugi rules engine: one state object, deterministic from a seed (RULES.md, S1-S17).

A round is planning (each seat in turn puts a card face down in the timeline or discards it for
its action), then resolution (automatic: the cards are turned left to right and every arrow
moves its samurai one space), then maintenance (each seat discards what it likes and draws up to
4). The game ends the instant the third samurai reaches the Temple. In our edition 2 (the
table's ``edition`` option), while two samurai are home, every planning ends with the Temple's
call: the samurai in columns 0-3 step north (S17); edition 3 calls from round 20 on as well,
whoever is home; edition 4 (the default) summons instead from round 30 on: every samurai steps
north and nothing stops it.

The board is 3 lanes (a, b, c) x 6 columns: column 0 is the Start tile, 1-4 the forest, 5 the
Temple. A space is written ``b3`` (lane b, column 3) and is ``[column, lane]`` on the wire.

>>> state = State.new(players=2, seed=7)
>>> state.phase, state.current_seat
('plan', 1)
>>> card = state.hands[1][0]
>>> events = state.apply(Action.timeline(card, 90))
>>> events[0]["type"], state.current_seat
('card_placed', 0)
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any, NamedTuple

from sagani_net.game import (
    ActionForms,
    Data,
    Engine,
    GameState,
    Result,
    RuleError,
    Rules,
    action_form,
    check_record,
    check_replayed,
    grid_cell,
    grid_data,
    is_int,
    recorded_outcomes,
    replay_actions,
    shuffle,
)
from sagani_net.games.sugi import words
from sagani_net.games.sugi.about import ABOUT, EDITIONS, LATEST_EDITION
from sagani_net.games.sugi.edition import (
    ACTIONS,
    COLOURS,
    DIRECTIONS,
    EDITION,
    LANE_NAMES,
    LANES,
    TURNS,
    Edition,
    space_name,
)

PLAN, PUSH, MAINTENANCE, OVER = "plan", "push", "maintenance", "over"
HAND_SIZE = 4
COLUMNS = 6
TEMPLE_COLUMN = COLUMNS - 1
SPACES = LANES * COLUMNS
FOREST = tuple(range(LANES, LANES * TEMPLE_COLUMN))  # the spaces of columns 1-4
TEMPLE_SPACES = tuple(range(LANES * TEMPLE_COLUMN, SPACES))
ARRIVAL_END = 3  # the third samurai in the Temple ends the game (S13)
ROUND_CAP = 60  # S14: a safety stop against stand-offs and aimless play
CALL_PEDESTALS = 2  # S17: the Temple calls once this many samurai stand on its pedestals
CALL_ROUND = 20  # S17 (edition 3): and in every round from this one on, however many are home
CALL_BELOW = 4  # S17: it calls the samurai in columns 0-3 (the last step is the players')
#: S17 (edition 4): from this round on the call is the summons, which nothing stops, so that a
#: game ends by round SUMMONS_ROUND + 4 at the latest and the round cap is never reached.
SUMMONS_ROUND = 30
N, E, S, W = range(4)
OPPOSITE = (S, W, N, E)
ALL_OPEN = 0b1111
START_CROSSING = 1  # b0, the Start's middle space, where every samurai begins
ON_TEMPLE = -1  # the ghost's place before it first moves
ARRIVED = -1  # a samurai's place once it stands on a pedestal
ROTATE_BY = (90, 180, 270)
ROTATE_TILE_ACTIONS = len(FOREST) * len(ROTATE_BY)  # a rotate card's actions on forest tiles
_new_tuple = tuple.__new__
#: A card's action icon as its index in ACTIONS, for the random mover's tables.
ROTATE, FREE, GHOST = (ACTIONS.index(icon) for icon in ("rotate", "free", "ghost"))


def timeline_limit(players: int) -> int:
    """How many cards the timeline holds: 5 for 2-3 players, 6 for 4-5."""
    return 5 if players <= 3 else 6


def parse_space(text: str) -> int:
    """The space written ``b3``; raises RuleError("bad_action", ...)."""
    if len(text) == 2 and text[0] in LANE_NAMES and text[1].isdigit():
        column = int(text[1])
        if column < COLUMNS:
            return column * LANES + LANE_NAMES.index(text[0])
    raise RuleError("bad_action", f"{text!r} is not a space (lane a-c, column 0-5: b3)")


def _neighbours(space: int) -> tuple[int, int, int, int]:
    column, lane = divmod(space, LANES)
    return (
        space + LANES if column < COLUMNS - 1 else -1,
        space + 1 if lane < LANES - 1 else -1,
        space - LANES if column > 0 else -1,
        space - 1 if lane > 0 else -1,
    )


#: Space -> the space one step N, E, S, W (-1 off the board).
NEIGHBOUR = tuple(_neighbours(s) for s in range(SPACES))
IS_FOREST = tuple(s in FOREST for s in range(SPACES))


def _ghost_rays(starts: list[tuple[int, int]]) -> tuple[tuple[int, int, Any], ...]:
    """Per way the ghost may set off from ``starts`` ((space, direction) pairs): the bits of the
    direction and its opposite (in ``sides``), and the steps (from, to) in a straight line
    short of the Temple's row."""
    rays = []
    for at, d in starts:
        steps = []
        while 0 <= (to := NEIGHBOUR[at][d]) < TEMPLE_SPACES[0]:
            steps.append((at, to))
            at = to
        rays.append((1 << d, 1 << OPPOSITE[d], tuple(steps)))
    return tuple(rays)


#: Ghost space -> its rays (:func:`_ghost_rays`); the last, index ON_TEMPLE, while on the
#: Temple: from each Temple space south.
GHOST_RAYS = tuple(_ghost_rays([(g, d) for d in range(4)]) for g in range(SPACES)) + (
    _ghost_rays([(t, S) for t in TEMPLE_SPACES]),)


class Components:
    """An edition turned into the tables the hot path indexes, made once per edition."""

    def __init__(self, edition: Edition) -> None:
        self.edition = edition
        colour_index = {c: i for i, c in enumerate(COLOURS)}
        direction_index = {d: i for i, d in enumerate(DIRECTIONS)}
        #: tile * 4 + quarter turns -> bit mask of open sides (bit d: direction d is open).
        self.sides = [0] * (4 * len(edition.tiles))
        for t in edition.tiles:
            upright = [direction_index[d] for d in t.open]
            for q in range(4):
                self.sides[t.id * 4 + q] = sum(1 << ((d + q) % 4) for d in upright)
        #: card * 4 + quarter turns -> ((samurai, direction), ...) in reading order (S4).
        self.steps: list[tuple[tuple[int, int], ...]] = [()] * (4 * len(edition.cards))
        for c in edition.cards:
            arrows = [(colour_index[a], direction_index[d]) for a, d in c.arrows]
            for q in range(4):
                turned = [(a, (d + q) % 4) for a, d in arrows]
                # Side by side upright: a quarter turn keeps left-right as top-bottom, a half
                # or three-quarter turn reads them the other way round.
                self.steps[c.id * 4 + q] = tuple(turned if q < 2 else turned[::-1])
        self.icon = [c.action for c in edition.cards]
        self.icon_index = [ACTIONS.index(c.action) for c in edition.cards]
        #: family -> points per samurai colour index.
        self.points = [[f.value(c) for c in COLOURS] for f in edition.families]
        self.card_ids = tuple(c.id for c in edition.cards)
        self.tile_ids = tuple(t.id for t in edition.tiles)
        self.family_ids = tuple(f.id for f in edition.families)
        self.timeline_actions = [
            [Action("timeline", c.id, turn=t) for t in TURNS] for c in edition.cards
        ]
        self.rotate_tile_actions = [
            [Action("rotate", c.id, space=s, turn=by) for s in FOREST for by in ROTATE_BY]
            for c in edition.cards
        ]


class Action(NamedTuple):
    """One decision. Text forms (cards by id, timeline slots ``t1``... from the left):

    ``timeline 17 rot 90``; ``action 17 rotate b3 90``, ``action 17 rotate t2 180``,
    ``action 17 free 23 t2 rot 90``, ``action 17 ghost b2``, ``action 17 remove t3``;
    ``push E``; ``discard 17 23`` (``discard`` alone keeps the whole hand).

    >>> Action.parse("action 17 free 23 t2 rot 90")
    Action(type='free', card=17, place=23, slot=1, space=-1, turn=90, direction=-1, cards=())
    >>> str(Action.parse("action 4 rotate b3 270"))
    'action 4 rotate b3 270'
    """

    type: str
    card: int = -1
    place: int = -1  # free: the card put in the timeline
    slot: int = -1  # a timeline position, 0 = leftmost
    space: int = -1
    turn: int = 0  # degrees clockwise: how a card is turned, or how far a rotation turns
    direction: int = -1  # push
    cards: tuple[int, ...] = ()  # discard

    @classmethod
    def timeline(cls, card: int, turn: int = 0) -> Action:
        return cls("timeline", card, turn=turn)

    def __str__(self) -> str:
        kind = self.type
        if kind == "timeline":
            return f"timeline {self.card} rot {self.turn}"
        if kind == "push":
            return f"push {DIRECTIONS[self.direction]}"
        if kind == "discard":
            return " ".join(["discard", *map(str, self.cards)])
        head = f"action {self.card} {kind}"
        if kind == "rotate":
            target = space_name(self.space) if self.space >= 0 else f"t{self.slot + 1}"
            return f"{head} {target} {self.turn}"
        if kind == "free":
            return f"{head} {self.place} t{self.slot + 1} rot {self.turn}"
        if kind == "ghost":
            return f"{head} {space_name(self.space)}"
        return f"{head} t{self.slot + 1}"  # remove

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the text form; raises RuleError("bad_action", ...)."""
        words = text.lower().split()
        try:
            return _parse_words(words)
        except (ValueError, IndexError):
            raise RuleError("bad_action", f"cannot read {text!r} as an action") from None

    def to_dict(self) -> Data:
        """The wire and record form, e.g. ``{"type": "timeline", "card": 17, "rotation": 90}``."""
        kind = self.type
        if kind == "timeline":
            return {"type": kind, "card": self.card, "rotation": self.turn}
        if kind == "push":
            return {"type": kind, "direction": DIRECTIONS[self.direction]}
        if kind == "discard":
            return {"type": kind, "cards": list(self.cards)}
        data: Data = {"type": kind, "card": self.card}
        if kind == "rotate":
            if self.space >= 0:
                data["space"] = _space_data(self.space)
            else:
                data["slot"] = self.slot
            data["by"] = self.turn
        elif kind == "free":
            data.update(place=self.place, slot=self.slot, rotation=self.turn)
        elif kind == "ghost":
            data["space"] = _space_data(self.space)
        else:
            data["slot"] = self.slot
        return data

    @classmethod
    def from_dict(cls, data: Any) -> Action:
        """Read the wire form, checking every field; raises RuleError("bad_action", ...)."""
        kind = action_form(data, ACTION_FORMS)
        fields = set(data) - {"type"}
        if kind == "push":
            if data["direction"] not in DIRECTIONS:
                raise RuleError("bad_action", "direction is one of N, E, S, W")
            return cls("push", direction=DIRECTIONS.index(data["direction"]))
        if kind == "discard":
            cards = data["cards"]
            if not isinstance(cards, list) or not all(map(is_int, cards)):
                raise RuleError("bad_action", "cards is a list of card ids")
            return cls("discard", cards=tuple(sorted(cards)))
        for name in fields - {"space"}:
            if not is_int(data[name]):
                raise RuleError("bad_action", f"{name} must be an integer")
        space = _read_space(data["space"]) if "space" in data else -1
        turn: int = data["rotation"] if "rotation" in data else data.get("by", 0)
        return cls(kind, data["card"], data.get("place", -1), data.get("slot", -1), space, turn)


#: Each action's fields besides its type, one tuple a form (protocol/games/sugi.md).
ACTION_FORMS: ActionForms = {
    "timeline": (("card", "rotation"),),
    "rotate": (("card", "space", "by"), ("card", "slot", "by")),
    "free": (("card", "place", "slot", "rotation"),),
    "ghost": (("card", "space"),),
    "remove": (("card", "slot"),),
    "push": (("direction",),),
    "discard": (("cards",),),
}


def _parse_words(words: list[str]) -> Action:
    head = words[0]
    if head == "timeline" and len(words) in (2, 4):
        turn = _rot(words[2:]) if len(words) == 4 else 0
        return Action.timeline(int(words[1]), turn)
    if head == "push" and len(words) == 2:
        return Action("push", direction=DIRECTIONS.index(words[1].upper()))
    if head == "discard":
        return Action("discard", cards=tuple(sorted(int(w) for w in words[1:])))
    if head == "action" and len(words) >= 3:
        card, kind, rest = int(words[1]), words[2], words[3:]
        if kind == "rotate" and len(rest) == 2:
            if rest[0].startswith("t"):
                return Action("rotate", card, slot=_slot(rest[0]), turn=int(rest[1]))
            return Action("rotate", card, space=parse_space(rest[0]), turn=int(rest[1]))
        if kind == "free" and len(rest) in (2, 4):
            turn = _rot(rest[2:]) if len(rest) == 4 else 0
            return Action("free", card, place=int(rest[0]), slot=_slot(rest[1]), turn=turn)
        if kind == "ghost" and len(rest) == 1:
            return Action("ghost", card, space=parse_space(rest[0]))
        if kind == "remove" and len(rest) == 1:
            return Action("remove", card, slot=_slot(rest[0]))
    raise ValueError(words)


def _rot(words: list[str]) -> int:
    if words[0] != "rot":
        raise ValueError(words)
    return int(words[1])


def _slot(word: str) -> int:
    if not word.startswith("t"):
        raise ValueError(word)
    return int(word[1:]) - 1


def _space_data(space: int) -> list[int]:
    return grid_data(space, LANES)


def _read_space(value: Any) -> int:
    space = grid_cell(value, COLUMNS, LANES)  # a column of the forest is a row of the grid
    if space is not None:
        return space
    raise RuleError("bad_action", "a space is [column 0-5, lane 0-2]")


COMPONENTS = Components(EDITION)


class Outcome(NamedTuple):
    """The end: points per seat, seats best first (S15), and who tied for first."""

    scores: tuple[int, ...]
    ranking: tuple[int, ...]
    winners: tuple[int, ...]
    pedestals: tuple[str, ...]
    families: tuple[int, ...]
    rounds: int

    def figures(self) -> Data:
        return {"winners": list(self.winners), "pedestals": list(self.pedestals),
                "families": list(self.families), "rounds": self.rounds}

    def to_dict(self) -> Data:
        return {"scores": list(self.scores), "ranking": list(self.ranking), **self.figures()}


class State(Engine):
    """A game of Sugi in progress. See the module docstring for an example.

    Public attributes the bots and the console read: ``phase`` (``plan``, ``push``,
    ``maintenance`` or ``over``), ``seat`` (to move), ``round``, ``samurai`` (per colour, its
    space, ``column * LANES + lane``; :data:`ARRIVED` on a pedestal), ``pedestals``, ``ghost``,
    ``revealed`` and ``sides`` (per space), ``discard``; ``parts`` the edition's components
    (``parts.points[family]``: a family tree card's points per colour).

    Secret parts (never in :meth:`view`): ``hands``, ``families``, the order of ``deck``,
    the tile and turn of every face-down forest space, and the timeline's cards and turns.
    In a state rebuilt from what a seat knows, the seat's own are true and the rest a sample.

    Every random outcome is kept as it happens, for the record: ``deal`` (the setup) and
    ``reshuffles`` (each new deck, top first). A replay takes them from its record
    (``script``: the reshuffles still to come) instead of from the seed.
    """

    action_type = Action
    __slots__ = (
        "players", "seed", "rng", "rng_owned", "parts", "limit", "tile_at", "turn", "revealed",
        "sides", "samurai", "pedestals", "ghost", "hands", "families", "deck", "discard",
        "known_bottom", "timeline", "last_placer", "phase", "seat", "round", "round_start",
        "pushing", "ghost_from", "ghost_dir", "ghost_target", "maintenance_left", "history",
        "origin", "outcome",
        "deal", "reshuffles", "script", "edition",
    )
    players: int
    seed: int | None  # None: rebuilt from a view
    rng: random.Random  # shared with clones until one of them reshuffles
    rng_owned: bool
    parts: Components
    limit: int  # the timeline's length that ends the planning
    tile_at: tuple[int, ...]  # per space, its forest tile (-1: none)
    turn: list[int]  # per space, its tile's quarter turns
    revealed: list[bool]
    sides: list[int]  # per space, a bitmask of its open sides
    samurai: list[int]  # per colour, its space
    pedestals: list[int]  # colours, in the order they reached the temple
    ghost: int
    hands: list[list[int]]
    families: list[int]
    deck: list[int]  # top at the end
    discard: list[int]
    known_bottom: list[tuple[int, ...]]  # per seat, the cards it knows under the deck
    timeline: list[tuple[int, int, int]]  # (card, quarter turns, seat that placed it)
    last_placer: int | None
    round: int
    round_start: int
    pushing: tuple[int, ...]  # the samurai a move pushes, the one to move first
    ghost_from: int
    ghost_dir: int
    ghost_target: int  # where the ghost was sent: it goes on there once its pushes are done
    maintenance_left: int
    history: list[tuple[int, Action]]
    outcome: Outcome | None
    deal: Data | None  # the setup, for the record
    reshuffles: tuple[list[int], ...]  # each new deck, top first
    script: tuple[Any, ...]  # the reshuffles a replayed record holds
    edition: int

    # -- creation ---------------------------------------------------------------------------

    @classmethod
    def new(cls, players: int = 2, seed: int | None = None, parts: Components = COMPONENTS,
            deal: Data | None = None, edition: int = LATEST_EDITION) -> State:
        """A new game (S1): ``seed`` decides the forest, the deal and the first player, or a
        record's ``deal`` does (checked; ``bad_record`` when it cannot be). The seed's
        generator deals either way, so that it stands where the original game's did.
        ``edition`` is the rule set (``EDITIONS``)."""
        if players not in (2, 3, 4, 5):
            raise RuleError("bad_config", "Sugi is for 2-5 players")
        if edition not in EDITIONS:
            raise RuleError("bad_config", f"our Sugi editions are {', '.join(map(str, EDITIONS))}")
        if seed is None:
            seed = random.SystemRandom().randrange(2**63)
        rng = random.Random(seed)
        s = cls._blank(players, parts, rng)
        s.seed, s.edition = seed, edition
        tiles = list(parts.tile_ids)
        shuffle(tiles, rng)
        tile_at = [-1] * SPACES
        for space, tile in zip(FOREST, tiles, strict=True):
            tile_at[space] = tile
            s.turn[space] = rng.randrange(4)
            s.sides[space] = parts.sides[tile * 4 + s.turn[space]]
            s.revealed[space] = False
        s.tile_at = tuple(tile_at)
        families = list(parts.family_ids)
        shuffle(families, rng)
        s.families = families[:players]
        deck = list(parts.card_ids)
        shuffle(deck, rng)
        s.deck = deck
        for seat in range(players):
            s.hands[seat] = sorted(deck.pop() for _ in range(HAND_SIZE))
        s.round_start = s.seat = rng.randrange(players)
        if deal is not None:
            s._deal_from(deal)
        s.deal = {
            "forest": [[space // LANES, space % LANES, s.tile_at[space], s.turn[space] * 90]
                       for space in FOREST],
            "families": s.families[:], "hands": [h[:] for h in s.hands], "deck": s.deck[::-1],
            "first": s.seat,
        }
        return s

    def _deal_from(self, deal: Any) -> None:
        """The deal a record holds (``deal`` in ``to_record``), each part checked."""
        parts, players = self.parts, self.players
        if not isinstance(deal, dict) or set(deal) != set(DEAL_FIELDS):
            raise RuleError("bad_record", f"deal is a map of {', '.join(DEAL_FIELDS)}")
        forest, families, hands = deal["forest"], deal["families"], deal["hands"]
        deck = deal["deck"]
        if not (isinstance(forest, list) and all(
                isinstance(f, list) and len(f) == 4 and all(map(is_int, f)) for f in forest)
                and sorted(f[0] * LANES + f[1] for f in forest if 0 <= f[1] < LANES)
                == list(FOREST) and sorted(f[2] for f in forest) == sorted(parts.tile_ids)
                and all(f[3] in TURNS for f in forest)):
            raise RuleError("bad_record", "deal forest: [column, lane, tile, rotation] for each "
                            "forest space once, every tile once, rotations 0-270")
        if not (_is_cards(families) and len(families) == players
                and set(families) <= set(parts.family_ids)):
            raise RuleError("bad_record", f"deal families: {players} different family cards")
        if not (isinstance(hands, list) and len(hands) == players
                and all(isinstance(h, list) and len(h) == HAND_SIZE for h in hands)
                and _is_cards(deck) and _is_cards([c for h in hands for c in h])
                and sorted([*deck, *(c for h in hands for c in h)]) == sorted(parts.card_ids)):
            raise RuleError("bad_record", f"deal hands and deck: {players} hands of "
                            f"{HAND_SIZE} and the deck, every card once")
        if not is_int(deal["first"]) or deal["first"] not in range(players):
            raise RuleError("bad_record", f"deal first: a seat, 0-{players - 1}")
        tile_at = [-1] * SPACES
        for column, lane, tile, rotation in forest:
            space = column * LANES + lane
            tile_at[space], self.turn[space] = tile, rotation // 90
            self.sides[space] = parts.sides[tile * 4 + self.turn[space]]
        self.tile_at = tuple(tile_at)
        self.families = families[:]
        self.hands = [sorted(h) for h in hands]
        self.deck = deck[::-1]  # top at the end, so drawing pops
        self.round_start = self.seat = deal["first"]

    @classmethod
    def _blank(cls, players: int, parts: Components, rng: random.Random) -> State:
        s = cls.__new__(cls)
        s.players, s.parts, s.limit = players, parts, timeline_limit(players)
        s.seed, s.rng, s.rng_owned = None, rng, True
        s.tile_at = (-1,) * SPACES
        s.turn = [0] * SPACES
        s.revealed = [True] * SPACES
        s.sides = [ALL_OPEN] * SPACES
        s.samurai = [START_CROSSING] * len(COLOURS)
        s.pedestals = []
        s.ghost = ON_TEMPLE
        s.hands = [[] for _ in range(players)]
        s.families = [0] * players
        s.deck, s.discard = [], []
        s.known_bottom = [() for _ in range(players)]
        s.timeline = []
        s.last_placer = None
        s.phase, s.seat, s.round, s.round_start = PLAN, 0, 1, 0
        s.pushing, s.ghost_from, s.ghost_dir, s.ghost_target = (), ON_TEMPLE, S, ON_TEMPLE
        s.maintenance_left = 0
        s.history, s.origin, s.outcome = [], 0, None
        s.deal, s.reshuffles, s.script = None, (), ()
        s.edition = LATEST_EDITION
        return s

    def clone(self) -> State:
        """An independent copy. The generator is shared until either side reshuffles."""
        c = State.__new__(State)
        c.players, c.seed, c.rng, c.parts, c.limit = (
            self.players, self.seed, self.rng, self.parts, self.limit)
        self.rng_owned = c.rng_owned = False
        c.tile_at, c.turn, c.revealed, c.sides = (
            self.tile_at, self.turn[:], self.revealed[:], self.sides[:])
        c.samurai, c.pedestals, c.ghost = self.samurai[:], self.pedestals[:], self.ghost
        c.hands = [h[:] for h in self.hands]
        c.families, c.deck, c.discard = self.families, self.deck[:], self.discard[:]
        c.known_bottom, c.timeline = self.known_bottom[:], self.timeline[:]
        c.last_placer, c.phase, c.seat = self.last_placer, self.phase, self.seat
        c.round, c.round_start = self.round, self.round_start
        c.pushing, c.ghost_from, c.ghost_dir = self.pushing, self.ghost_from, self.ghost_dir
        c.ghost_target = self.ghost_target
        c.maintenance_left = self.maintenance_left
        c.history, c.origin, c.outcome = self.history[:], self.origin, self.outcome
        c.deal, c.reshuffles, c.script = self.deal, self.reshuffles, self.script
        c.edition = self.edition
        return c

    # -- questions --------------------------------------------------------------------------

    def scores(self) -> list[int]:
        """Final points once the game is over; zeros before, as the family trees are secret."""
        if self.outcome is not None:
            return list(self.outcome.scores)
        return [0] * self.players

    def result(self) -> Result | None:
        o = self.outcome
        return None if o is None else Result(o.scores, o.ranking, o.figures())

    def default_action(self) -> Action:
        """The first legal action; in planning, a card of the hand put in the timeline turned
        some way, both picked by the game's generator as it stands (a secret until the game is
        over, as the deck it shuffles is) and the version: deterministic, yet nobody learns
        which card went face down. The hand's lowest card turned 0 told everyone both."""
        if self.phase != PLAN:
            return self.legal_actions()[0]
        pick = random.Random(f"{self.version} {self.rng.getstate()}")
        return pick.choice(self.parts.timeline_actions[pick.choice(self.hands[self.seat])])

    def occupied(self, space: int) -> bool:
        return space in self.samurai

    def ghost_targets(self) -> list[int]:
        """Where the ghost may be sent (S10), as far as the face-up tiles tell: straight on,
        not through a known obstacle, never to the Temple; past samurai too (it pushes them
        on its way)."""
        out: list[int] = []
        sides, revealed = self.sides, self.revealed
        # passable(at, d, to, known=True), written out: this runs for every random move made
        # with a ghost card in hand.
        for way, back, steps in GHOST_RAYS[self.ghost]:
            for at, to in steps:
                if (revealed[at] and not sides[at] & way
                        or revealed[to] and not sides[to] & back):
                    break
                out.append(to)
        return out

    def ghost_way(self, target: int) -> list[int]:
        """The spaces the ghost would enter, in order, if sent to ``target`` (one of
        :meth:`ghost_targets`; else none)."""
        for _, _, steps in GHOST_RAYS[self.ghost]:
            way = [to for _, to in steps]
            if target in way:
                return way[: way.index(target) + 1]
        return []

    def push_options(self) -> list[int]:
        """Directions the samurai being pushed may be sent (S11): :meth:`push_ways`."""
        return self.push_ways(self.samurai[self.pushing[0]], self.ghost_dir)

    def push_ways(self, at: int, ghost_dir: int) -> list[int]:
        """Directions a samurai on ``at`` may be pushed by the ghost come ``ghost_dir`` (S11):
        aside from the ghost's line (neither the ghost's way on nor back the way it came),
        not off the board or through a known obstacle."""
        aside = (E, W) if ghost_dir in (N, S) else (N, S)
        return [d for d in aside if NEIGHBOUR[at][d] >= 0
                and self.passable(at, d, NEIGHBOUR[at][d], True)]

    def passable(self, at: int, d: int, to: int, known: bool = False) -> bool:
        """Whether the side of ``at`` towards its neighbour ``to`` (direction ``d``) and the side
        of ``to`` facing back are both open; ``known``: as far as the face-up tiles tell."""
        sides, revealed = self.sides, self.revealed
        if (revealed[at] or not known) and not sides[at] >> d & 1:
            return False
        return not ((revealed[to] or not known) and not sides[to] >> OPPOSITE[d] & 1)

    def legal_actions(self) -> list[Action]:
        """Every legal decision for the seat to move, in a stable order."""
        phase = self.phase
        if phase == PLAN:
            return self._plan_actions()
        if phase == PUSH:
            return [Action("push", direction=d) for d in self.push_options()]
        if phase == MAINTENANCE:
            hand = self.hands[self.seat]
            return [Action("discard", cards=chosen)
                    for k in range(len(hand) + 1) for chosen in combinations(hand, k)]
        return []

    def _plan_actions(self) -> list[Action]:
        parts = self.parts
        hand = self.hands[self.seat]
        slots = len(self.timeline)
        out: list[Action] = []
        for card in hand:
            out += parts.timeline_actions[card]
        targets: list[int] | None = None
        for card in hand:
            icon = parts.icon[card]
            if icon == "rotate":
                out += parts.rotate_tile_actions[card]
                out += [Action("rotate", card, slot=i, turn=by)
                        for i in range(slots) for by in ROTATE_BY]
            elif icon == "free":
                out += [Action("free", card, place, slot=i, turn=t)
                        for place in hand if place != card
                        for i in range(slots + 1) for t in TURNS]
            elif icon == "ghost":
                if targets is None:
                    targets = self.ghost_targets()
                out += [Action("ghost", card, space=s) for s in targets]
            elif slots:
                out += [Action("remove", card, slot=i) for i in range(slots)]
        return out

    # -- applying ---------------------------------------------------------------------------

    def random_action(self, rng: random.Random) -> Action:
        """A uniformly random legal action, picked by counting rather than listing them all:
        the same as ``legal_actions()[i]`` for a uniform ``i`` (random play is the benchmark
        and the rollout, so it must be cheap)."""
        phase = self.phase
        if phase == MAINTENANCE:
            # Every subset of the hand is one action: a fair coin per card picks one uniformly.
            cards = tuple(sorted([c for c in self.hands[self.seat] if rng.random() < 0.5]))
            return _new_tuple(Action, ("discard", -1, -1, -1, -1, 0, -1, cards))
        if phase != PLAN:
            actions = self.legal_actions()
            return actions[int(rng.random() * len(actions))]
        parts = self.parts
        hand = self.hands[self.seat]
        h, slots = len(hand), len(self.timeline)
        icon_of = parts.icon_index
        icons = list(map(icon_of.__getitem__, hand))
        targets = self.ghost_targets() if GHOST in icons else ()
        # How many actions a card offers, by its icon (ACTIONS' order), as legal_actions()
        # lists them.
        size_of = (ROTATE_TILE_ACTIONS + 3 * slots, (h - 1) * (slots + 1) * 4, len(targets), slots)
        total = 4 * h
        for icon in icons:
            total += size_of[icon]
        i = int(rng.random() * total)
        if i < 4 * h:
            return parts.timeline_actions[hand[i >> 2]][i & 3]
        i -= 4 * h
        for k, icon in enumerate(icons):
            card = hand[k]
            size = size_of[icon]
            if i >= size:
                i -= size
                continue
            # tuple.__new__ skips the named tuple's keyword-reading __new__ (the hot path):
            # the fields are type, card, place, slot, space, turn, direction, cards.
            if icon == ROTATE:
                if i < ROTATE_TILE_ACTIONS:
                    return parts.rotate_tile_actions[card][i]
                slot, by = divmod(i - ROTATE_TILE_ACTIONS, 3)
                return _new_tuple(Action, ("rotate", card, -1, slot, -1, ROTATE_BY[by], -1, ()))
            if icon == FREE:
                other, rest = divmod(i, (slots + 1) * 4)
                slot, t = divmod(rest, 4)
                place = hand[other + (other >= hand.index(card))]  # the other cards, in order
                return _new_tuple(Action, ("free", card, place, slot, -1, TURNS[t], -1, ()))
            if icon == GHOST:
                return _new_tuple(Action, ("ghost", card, -1, -1, targets[i], 0, -1, ()))
            return _new_tuple(Action, ("remove", card, -1, i, -1, 0, -1, ()))
        raise AssertionError("the counts above cover every planning action")

    def _check(self, action: Action) -> None:
        phase, kind = self.phase, action.type
        if phase == OVER:
            raise RuleError("game_over", "the game is over")
        if phase == PUSH:
            if kind != "push":
                raise RuleError("wrong_phase", "push the samurai the ghost reached first")
            if action.direction not in self.push_options():
                raise RuleError("cannot_push", "the samurai cannot be pushed that way")
            return
        if phase == MAINTENANCE:
            if kind != "discard":
                raise RuleError("wrong_phase", "maintenance: discard cards (or none)")
            hand = self.hands[self.seat]
            if len(set(action.cards)) != len(action.cards) or not set(action.cards) <= set(hand):
                raise RuleError("not_in_hand", "discard only cards in your hand, each once")
            return
        if kind not in ("timeline", *ACTIONS):
            raise RuleError("wrong_phase", f"planning: {kind} is not allowed now")
        hand = self.hands[self.seat]
        if action.card not in hand:
            raise RuleError("not_in_hand", f"card {action.card} is not in your hand")
        slots = len(self.timeline)
        if kind == "timeline":
            if action.turn not in TURNS:
                raise RuleError("bad_rotation", "a card is turned 0, 90, 180 or 270 degrees")
            return
        if self.parts.icon[action.card] != kind:
            raise RuleError("wrong_icon", f"card {action.card} shows "
                            f"{self.parts.icon[action.card]}, not {kind}")
        if kind == "rotate":
            if action.turn not in ROTATE_BY:
                raise RuleError("bad_rotation", "rotate by 90, 180 or 270 degrees")
            if (action.space < 0) == (action.slot < 0):
                raise RuleError("bad_target", "rotate a forest tile or a timeline card")
            if action.space >= 0 and not (action.space < SPACES and IS_FOREST[action.space]):
                raise RuleError("bad_target", "only forest tiles (columns 1-4) rotate")
            if action.slot >= slots:
                held = (f"slots 0 to {slots - 1} (in text, t1 to t{slots})" if slots else
                        "it is empty")
                raise RuleError("bad_slot", f"no timeline card at slot {action.slot}: {held}")
        elif kind == "free":
            if action.place == action.card or action.place not in hand:
                raise RuleError("not_in_hand", "place another card from your hand")
            if not 0 <= action.slot <= slots:
                raise RuleError("bad_slot", f"a free card goes in slot 0 to {slots} (in text, t1 "
                                f"to t{slots + 1})")
            if action.turn not in TURNS:
                raise RuleError("bad_rotation", "a card is turned 0, 90, 180 or 270 degrees")
        elif kind == "ghost":
            if action.space not in self.ghost_targets():
                raise RuleError("ghost_cannot", "the ghost cannot go there in a straight line")
        elif not 0 <= action.slot < slots:
            raise RuleError("bad_slot", "remove a card that is in the timeline")

    def _do(self, action: Action, ev: list[Data] | None) -> None:
        seat = self.seat
        self.history.append((seat, action))
        kind = action.type
        if kind == "push":
            self._push(action.direction, ev)
            return
        if kind == "discard":
            self._maintain(seat, action.cards, ev)
            return
        card = action.card
        self.hands[seat].remove(card)
        if kind == "timeline":
            self.timeline.append((card, action.turn // 90, seat))
            self.last_placer = seat
            if ev is not None:
                ev.append({"type": "card_placed", "seat": seat, "slot": len(self.timeline) - 1})
            self._after_planning_turn(ev)
            return
        self.discard.append(card)
        if ev is not None:
            ev.append({"type": "action_played", "seat": seat, "card": card, "action": kind})
        if kind == "rotate":
            self._rotate(action, ev)
        elif kind == "free":
            self.hands[seat].remove(action.place)
            self.timeline.insert(action.slot, (action.place, action.turn // 90, seat))
            self.last_placer = seat
            if ev is not None:
                ev.append({"type": "card_placed", "seat": seat, "slot": action.slot,
                           "free": True})
            self._draw(seat, 1, ev)
        elif kind == "ghost":
            if self._send_ghost(action.space, ev):
                return  # the pushes carry on planning themselves
        else:
            self._remove(action.slot, ev)
        self._after_planning_turn(ev)

    def _rotate(self, action: Action, ev: list[Data] | None) -> None:
        quarters = action.turn // 90
        if action.space >= 0:
            space = action.space
            turn = self.turn[space] = (self.turn[space] + quarters) % 4
            self.sides[space] = self.parts.sides[self.tile_at[space] * 4 + turn]
            if ev is not None:
                event: Data = {"type": "tile_rotated", "seat": self.seat,
                               "space": _space_data(space), "by": action.turn}
                if self.revealed[space]:
                    event["rotation"] = turn * 90
                ev.append(event)
            return
        card, turn, owner = self.timeline[action.slot]
        self.timeline[action.slot] = (card, (turn + quarters) % 4, owner)
        if ev is not None:
            ev.append({"type": "card_rotated", "seat": self.seat, "slot": action.slot,
                       "owner": owner, "by": action.turn})

    def _remove(self, slot: int, ev: list[Data] | None) -> None:
        card, _, owner = self.timeline.pop(slot)
        self.deck.insert(0, card)  # S9: to the bottom, unseen; its owner knows where it is
        self.known_bottom[owner] += (card,)
        if ev is not None:
            ev.append({"type": "card_removed", "seat": self.seat, "slot": slot, "owner": owner})

    def _after_planning_turn(self, ev: list[Data] | None) -> None:
        """S5: planning goes on with the next seat holding cards, until the timeline is full or
        every hand is empty; then resolution and maintenance."""
        hands = self.hands
        if len(self.timeline) < self.limit:
            for k in range(1, self.players + 1):
                seat = (self.seat + k) % self.players
                if hands[seat]:
                    self.seat = seat
                    return
        if self.timeline:
            self._resolve(ev)
            if self.phase == OVER:
                return
        if self._temple_calls():
            self._call(ev)
            if self.phase == OVER:  # the summons brought the third one home
                return
        self._start_maintenance(ev)

    def _temple_calls(self) -> bool:
        """S17: edition 2 calls while two samurai are home; editions 3 and 4 also from round 20
        (edition 4's call is the summons from round 30)."""
        if self.edition >= 3 and self.round >= CALL_ROUND:
            return True
        return self.edition >= 2 and len(self.pedestals) == CALL_PEDESTALS

    def _call(self, ev: list[Data] | None) -> None:
        """S17: with two samurai home (edition 2), or from round 20 on (editions 3 and 4), the
        Temple calls the others at the end of every planning: each one in columns 0-3 steps
        north, as by an arrow (S7: obstacles and the ghost stop it), so none can arrive. From
        round 30 on, edition 4 summons every one instead (:meth:`_summon`), in colour order,
        until the third is home."""
        summons = self.edition >= 4 and self.round >= SUMMONS_ROUND
        if ev is not None:
            ev.append({"type": "temple_summons" if summons else "temple_call"})
        for colour, at in enumerate(self.samurai):
            if at == ARRIVED:
                continue
            if summons:
                self._summon(colour, ev)
                if self.phase == OVER:  # the third one home ends the game at once
                    return
            elif at // LANES < CALL_BELOW:
                self._step(colour, N, ev)

    def _summon(self, colour: int, ev: list[Data] | None) -> None:
        """S17 (edition 4): one step north that nothing stops. A closed side is passed (a
        face-down tile entered turns face up), the ghost is leapt (the samurai lands on the
        space beyond it), and from column 4 the samurai enters the Temple, the ghost on it or
        not. Every summons brings every samurai a column nearer, in colour order."""
        at = self.samurai[colour]
        to = NEIGHBOUR[at][N]
        if to == self.ghost:
            to = NEIGHBOUR[to][N]
        if not self.revealed[to]:
            self._reveal(to, ev)
        self._move(colour, at, to, ev)

    # -- the ghost --------------------------------------------------------------------------

    def _send_ghost(self, target: int, ev: list[Data] | None) -> bool:
        """S10: the ghost goes straight towards ``target`` one space at a time; a face-down tile
        on its way is turned up as it enters, and an obstacle found there stops it short.
        Returns whether it reached samurai (then the pushes take over, and the ghost goes on
        to ``target`` once they are done: :meth:`_settle_push`)."""
        self.ghost_target = target
        at = self.ghost
        if at == ON_TEMPLE:
            at, d = TEMPLE_SPACES[target % LANES], S
        else:
            d = _direction(at, target)
        samurai = self.samurai
        while at != target:
            to = NEIGHBOUR[at][d]
            if not self.revealed[to]:
                self._reveal(to, ev)
            if not self.passable(at, d, to):
                if ev is not None:
                    ev.append({"type": "ghost_blocked", "space": _ghost_data(self.ghost),
                               "towards": _space_data(to)})
                return False
            self.ghost_from, self.ghost = self.ghost, to
            if ev is not None:
                ev.append({"type": "ghost_moved", "from": _ghost_data(self.ghost_from),
                           "to": _space_data(to)})
            at = to
            if to in samurai:
                self.ghost_dir = d
                self.pushing = tuple(c for c, place in enumerate(samurai) if place == to)
                self.phase = PUSH
                self._settle_push(ev)
                return True
        return False

    def _settle_push(self, ev: list[Data] | None) -> None:
        """S11: wait for a direction for the next samurai, or step the ghost back when that
        samurai cannot be pushed anywhere (S12: it stops there); once everyone is pushed the
        ghost goes on to where it was sent, and planning goes on when it stops."""
        if self.pushing and not self.push_options():
            back = self.ghost_from
            if back != ON_TEMPLE:
                self.ghost = back  # S12: back one space the way it came, pushing nobody
            if ev is not None:
                ev.append({"type": "ghost_stepped_back", "samurai": COLOURS[self.pushing[0]],
                           "to": _ghost_data(self.ghost)})
            self.pushing = ()
            self.ghost_target = self.ghost
        if not self.pushing:
            self.phase = PLAN
            if self.ghost != self.ghost_target and self._send_ghost(self.ghost_target, ev):
                return  # more samurai on its way: their pushes carry on planning themselves
            self._after_planning_turn(ev)

    def _push(self, d: int, ev: list[Data] | None) -> None:
        colour = self.pushing[0]
        if self._step(colour, d, ev, pushed_by=self.seat):
            self.pushing = self.pushing[1:]
        if self.phase == OVER:
            return
        self._settle_push(ev)

    # -- resolution -------------------------------------------------------------------------

    def _resolve(self, ev: list[Data] | None) -> None:
        """S6: the cards are turned left to right; each arrow moves its samurai one space."""
        timeline, self.timeline = self.timeline, []
        if ev is not None:
            ev.append({"type": "resolution", "seat": self.last_placer, "cards": len(timeline)})
        steps = self.parts.steps
        for slot, (card, turn, owner) in enumerate(timeline):
            self.discard.append(card)
            if ev is not None:
                ev.append({"type": "card_revealed", "slot": slot, "card": card,
                           "rotation": turn * 90, "owner": owner})
            for colour, d in steps[card * 4 + turn]:
                self._step(colour, d, ev)
                if self.phase == OVER:
                    self.discard.extend(c for c, _, _ in timeline[slot + 1 :])
                    return

    def _step(self, colour: int, d: int, ev: list[Data] | None,
              pushed_by: int | None = None) -> bool:
        """S7: one samurai tries one space; returns whether it moved."""
        at = self.samurai[colour]
        reason = None
        to = -1
        if at == ARRIVED:
            reason = "arrived"
        else:
            to = NEIGHBOUR[at][d]
            if to < 0:
                reason = "edge"
            else:
                if not self.revealed[to]:
                    self._reveal(to, ev)
                if not self.passable(at, d, to):
                    reason = "obstacle"
                elif to == self.ghost or (self.ghost == ON_TEMPLE and to >= TEMPLE_SPACES[0]):
                    reason = "ghost"
        if reason is not None:
            if ev is not None:
                event: Data = {"type": "samurai_blocked", "samurai": COLOURS[colour],
                               "direction": DIRECTIONS[d], "reason": reason}
                if pushed_by is not None:
                    event["seat"] = pushed_by
                ev.append(event)
            return False
        self._move(colour, at, to, ev, pushed_by)
        return True

    def _move(self, colour: int, at: int, to: int, ev: list[Data] | None,
              pushed_by: int | None = None) -> None:
        """The samurai goes from ``at`` to ``to``; a Temple space is a pedestal (S13)."""
        if ev is not None:
            event: Data = {"type": "samurai_pushed" if pushed_by is not None else "samurai_moved",
                           "samurai": COLOURS[colour], "from": _space_data(at),
                           "to": _space_data(to)}
            if pushed_by is not None:
                event["seat"] = pushed_by
            ev.append(event)
        if to >= TEMPLE_SPACES[0]:
            self.samurai[colour] = ARRIVED
            self.pedestals.append(colour)
            if ev is not None:
                ev.append({"type": "samurai_arrived", "samurai": COLOURS[colour],
                           "pedestal": len(self.pedestals)})
            if len(self.pedestals) >= ARRIVAL_END:
                self._finish(ev)
        else:
            self.samurai[colour] = to

    def _reveal(self, space: int, ev: list[Data] | None) -> None:
        self.revealed[space] = True
        if ev is not None:
            ev.append({"type": "tile_revealed", "space": _space_data(space),
                       "tile": self.tile_at[space], "rotation": self.turn[space] * 90})

    # -- maintenance ------------------------------------------------------------------------

    def _start_maintenance(self, ev: list[Data] | None) -> None:
        """S8: from the round's first seat on, each discards what it likes and draws to 4."""
        if self.round >= ROUND_CAP:
            self._finish(ev)
            return
        self.phase = MAINTENANCE
        self.maintenance_left = self.players
        self.seat = self.round_start
        if ev is not None:
            ev.append({"type": "maintenance"})
        self._next_to_maintain(ev)

    def _next_to_maintain(self, ev: list[Data] | None) -> None:
        # A seat with an empty hand has nothing to decide: it draws at once.
        while self.maintenance_left and not self.hands[self.seat]:
            self._draw(self.seat, HAND_SIZE, ev)
            self._maintained()
        if not self.maintenance_left:
            self._start_round(ev)

    def _maintained(self) -> None:
        self.maintenance_left -= 1
        self.seat = (self.seat + 1) % self.players

    def _maintain(self, seat: int, cards: tuple[int, ...], ev: list[Data] | None) -> None:
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        self.discard.extend(cards)
        if ev is not None:
            ev.append({"type": "discarded", "seat": seat, "cards": list(cards)})
        self._draw(seat, HAND_SIZE - len(hand), ev)
        self._maintained()
        self._next_to_maintain(ev)

    def _start_round(self, ev: list[Data] | None) -> None:
        # Every hand is full again (50 cards, at most 20 in hands), so the first seat can play.
        self.round += 1
        self.round_start = (self.round_start + 1) % self.players
        self.phase = PLAN
        self.last_placer = None
        self.seat = self.round_start
        if ev is not None:
            ev.append({"type": "round_started", "round": self.round, "seat": self.seat})

    def _draw(self, seat: int, count: int, ev: list[Data] | None) -> None:
        hand, deck = self.hands[seat], self.deck
        drawn = 0
        # The few cards some seat knows at the bottom of the deck (mostly none).
        known = set().union(*self.known_bottom) if any(self.known_bottom) else ()
        for _ in range(count):
            if not deck:
                if not self.discard:
                    break
                self._reshuffle(ev)
                deck = self.deck
            card = deck.pop()
            hand.append(card)
            drawn += 1
            if card in known:
                self._forget(card)
        hand.sort()  # hands are kept in card order, so that action lists are stable
        if ev is not None and count:
            ev.append({"type": "drew", "seat": seat, "count": drawn})

    def _forget(self, card: int) -> None:
        """A card its owner knew at the bottom of the deck has been drawn."""
        for seat, known in enumerate(self.known_bottom):  # a handful of short tuples
            if card in known:
                self.known_bottom[seat] = tuple(c for c in known if c != card)

    def _reshuffle(self, ev: list[Data] | None) -> None:
        """S8: the discards, shuffled by the game's own generator, become the deck."""
        if not self.rng_owned:
            rng = random.Random()
            rng.setstate(self.rng.getstate())
            self.rng, self.rng_owned = rng, True
        deck, self.discard = self.discard, []
        shuffle(deck, self.rng)  # also when a record says otherwise: the generator moves on
        done = len(self.reshuffles)
        if done < len(self.script):
            recorded = self.script[done]
            if not _is_cards(recorded) or sorted(recorded) != sorted(deck):
                raise RuleError("bad_record", f"reshuffles[{done}]: the discards were "
                                f"{sorted(deck)}")
            deck = recorded[::-1]
        self.deck = deck
        self.reshuffles += (deck[::-1],)
        if ev is not None:
            ev.append({"type": "deck_reshuffled", "cards": len(deck)})

    # -- the end ----------------------------------------------------------------------------

    def _finish(self, ev: list[Data] | None) -> None:
        """S15: points for the samurai on the pedestals; ties by who arrived first."""
        self.phase = OVER
        points = self.parts.points
        arrival = {colour: i for i, colour in enumerate(self.pedestals)}
        scores = []
        keys = []
        for seat in range(self.players):
            card = points[self.families[seat]]
            scores.append(sum(card[c] for c in self.pedestals))
            mine = sorted((c for c in self.pedestals if card[c]), key=lambda c: -card[c])
            keys.append(tuple(arrival[c] for c in mine) + (ARRIVAL_END,) * (3 - len(mine)))
        ranking = sorted(range(self.players), key=lambda s: (-scores[s], keys[s], s))
        best = ranking[0]
        winners = tuple(s for s in ranking if (scores[s], keys[s]) == (scores[best], keys[best]))
        self.outcome = Outcome(
            tuple(scores), tuple(ranking), winners,
            tuple(COLOURS[c] for c in self.pedestals), tuple(self.families), self.round,
        )
        if ev is not None:
            ev.append({"type": "game_over", **self.outcome.to_dict()})

    # -- views and records ------------------------------------------------------------------

    def view(self, seat: int | None = None, shared: bool = False) -> Data:
        """Everything anyone may see (S16). ``forest`` lists ``[column, lane, tile, rotation]``
        per forest space, tile and rotation None while face down; ``samurai`` is a space per
        colour (None on a pedestal); ``ghost`` None while on the Temple; ``timeline`` the
        owner of each face-down card, left to right."""
        over = self.phase == OVER
        data: Data = {
            "game": "sugi",
            "players": self.players,
            "version": self.version,
            "phase": self.phase,
            "turn": None if over else self.seat,
            "edition": self.edition,
            "round": self.round,
            "round_start": self.round_start,
            "limit": self.limit,
            "forest": self._forest(),
            "samurai": [None if p == ARRIVED else _space_data(p) for p in self.samurai],
            "pedestals": [COLOURS[c] for c in self.pedestals],
            "ghost": _ghost_data(self.ghost),
            "timeline": [owner for _, _, owner in self.timeline],
            "last_placer": self.last_placer,
            "hands": [len(h) for h in self.hands],
            "deck": len(self.deck),
            "discard": self.discard[:],
            "push": None,
        }
        if self.phase == PUSH:
            data["push"] = {"samurai": COLOURS[self.pushing[0]],
                            "waiting": [COLOURS[c] for c in self.pushing[1:]],
                            "ghost_direction": DIRECTIONS[self.ghost_dir],
                            "from": _ghost_data(self.ghost_from),
                            "target": _space_data(self.ghost_target)}
        if over:
            assert self.outcome is not None
            data["result"] = self.outcome.to_dict()
            data["seed"] = self.seed
        if seat is not None:
            data["you"] = seat
        return data

    def _forest(self) -> list[list[Any]]:
        """The forest as everyone sees it: ``[column, lane, tile, rotation]`` per space."""
        return [
            [s // LANES, s % LANES, self.tile_at[s], self.turn[s] * 90] if self.revealed[s]
            else [s // LANES, s % LANES, None, None]
            for s in FOREST
        ]

    def private(self, seat: int) -> Data | None:
        """The seat's hand, family tree card, its own face-down timeline cards
        (``[slot, card, rotation]``) and its removed cards still in the deck
        (``[place from the bottom, card]``)."""
        deck = self.deck
        return {
            "hand": self.hands[seat][:],
            "family": self.families[seat],
            "timeline": [[i, card, turn * 90] for i, (card, turn, owner) in enumerate(self.timeline)
                         if owner == seat],
            "deck_bottom": [[deck.index(card), card] for card in self.known_bottom[seat]],
        }

    def private_seats(self, events: list[Data]) -> list[int]:
        seats: set[int] = set()
        for event in events:
            kind = event["type"]
            # A card placed or removed shifts every seat's own slots on the timeline and the
            # places of the cards seats know at the deck's bottom; a draw may take one of those.
            if kind in ("deck_reshuffled", "resolution", "game_over", "card_placed",
                        "card_removed", "drew"):
                return list(range(self.players))
            for key in ("seat", "owner"):
                if isinstance(event.get(key), int):
                    seats.add(event[key])
        return sorted(seats)

    def to_record(self) -> Data:
        """The game record: config, seed (provenance), actions and every random outcome: the
        ``deal`` and each reshuffle's new deck. A replay takes them from the record, so it
        needs neither the seed nor Python's generator. It holds every secret: the host gives
        it out once the game is over."""
        deal = self.deal
        if self.origin or self.seed is None or deal is None:
            raise RuleError("no_record", "a state rebuilt from a view has no record")
        record: Data = {
            "game": "sugi",
            "config": {"players": self.players, "edition": self.edition},
            "seed": self.seed,
            "actions": [{"seat": seat, **a.to_dict()} for seat, a in self.history],
            "deal": {"forest": [f[:] for f in deal["forest"]], "families": deal["families"][:],
                     "hands": [h[:] for h in deal["hands"]], "deck": deal["deck"][:],
                     "first": deal["first"]},  # a copy: the state keeps its own
            "reshuffles": [list(deck) for deck in self.reshuffles],
        }
        if self.outcome is not None:
            record["result"] = self.outcome.to_dict()
        return record

    def __repr__(self) -> str:
        return (f"<sugi State players={self.players} version={self.version} round={self.round} "
                f"phase={self.phase} seat={self.current_seat}>")


def _direction(start: int, target: int) -> int:
    """The straight direction from ``start`` to ``target`` (the caller knows they line up)."""
    if start % LANES == target % LANES:
        return N if target > start else S
    return E if target > start else W


#: The parts of a record's deal (``State.to_record``).
DEAL_FIELDS = ("forest", "families", "hands", "deck", "first")


def _is_cards(value: Any) -> bool:
    """A list of ids (cards, family cards), each once (the caller checks which)."""
    return (isinstance(value, list) and all(map(is_int, value))
            and len(set(value)) == len(value))


def _ghost_data(ghost: int) -> list[int] | None:
    return None if ghost == ON_TEMPLE else _space_data(ghost)


def _sample_secrets(s: State, seen: Data, mine: Data, seat: int | None,
                    rng: random.Random) -> None:
    """Sample into ``s`` what ``seat`` (None: a spectator) does not know, from what it sees
    (``seen``: a view's ``forest``, ``hands``, ``timeline``, ``deck`` and ``discard``) and its
    private data ``mine``: the generator of future reshuffles, the face-down tiles and their
    turns, the other hands, family trees and face-down timeline cards, and the deck's order
    (cards the seat sent to the bottom stay where it knows they are). :func:`determinize` and
    ``Sugi.resample`` both sample through here, so that they sample the same.

    :raises RuleError: ``bad_view`` when ``seen`` and ``mine`` do not fit together.
    """
    parts = s.parts
    # Future reshuffles are unknown too: the sample gets a generator of its own.
    s.rng, s.rng_owned = random.Random(rng.getrandbits(64)), True
    # Tiles: the face-up ones as shown, the others a shuffle of the rest, each turned at random.
    tiles = list(parts.tile_ids)
    tile_at = [-1] * SPACES
    hidden = []
    for column, lane, tile, rotation in seen["forest"]:
        space = column * LANES + lane
        if tile is None:
            hidden.append(space)
            s.revealed[space] = False
            s.turn[space] = rng.randrange(4)
        else:
            tiles.remove(tile)
            tile_at[space], s.turn[space] = tile, rotation // 90
    shuffle(tiles, rng)
    for space, tile in zip(hidden, tiles, strict=True):
        tile_at[space] = tile
    s.tile_at = tuple(tile_at)
    for space in FOREST:
        s.sides[space] = parts.sides[tile_at[space] * 4 + s.turn[space]]
    # Cards: everything not seen is shuffled and dealt where the view has backs.
    known = [*seen["discard"], *mine["hand"], *(c for _, c, _ in mine["timeline"]),
             *(c for _, c in mine["deck_bottom"])]
    if len(set(known)) != len(known) or not set(known) <= set(parts.card_ids):
        raise RuleError("bad_view", "a card is in two places at once, or is no card of the game")
    if seat is not None and (
        len(mine["hand"]) != seen["hands"][seat]
        or any(not 0 <= slot < len(seen["timeline"]) or seen["timeline"][slot] != seat
               for slot, _, _ in mine["timeline"])
    ):
        raise RuleError("bad_view", "the private data is not the view's seat's")
    known_cards = set(known)
    unseen = [c for c in parts.card_ids if c not in known_cards]
    shuffle(unseen, rng)
    s.hands = [sorted(mine["hand"] if other == seat else [unseen.pop() for _ in range(count)])
               for other, count in enumerate(seen["hands"])]
    own_slots = {slot: (card, rotation // 90) for slot, card, rotation in mine["timeline"]}
    s.timeline = []
    for slot, owner in enumerate(seen["timeline"]):
        card, turn = own_slots.get(slot) or (unseen.pop(), rng.randrange(4))
        s.timeline.append((card, turn, owner))
    deck: list[int | None] = [None] * seen["deck"]
    for place, card in mine["deck_bottom"]:
        deck[place] = card
    if len(unseen) != deck.count(None):
        raise RuleError("bad_view", "the cards in the view and the private data do not add up")
    s.deck = [c if c is not None else unseen.pop() for c in deck]
    s.discard = list(seen["discard"])
    s.known_bottom = [() for _ in range(s.players)]
    if seat is not None:
        s.known_bottom[seat] = tuple(c for _, c in mine["deck_bottom"])
    families = [f for f in parts.family_ids if f != mine["family"]]
    shuffle(families, rng)
    s.families = [mine["family"] if other == seat else families.pop()
                  for other in range(s.players)]


def determinize(view: Data, private: Data | None, rng: random.Random,
                parts: Components = COMPONENTS) -> State:
    """A full state that agrees with ``view`` and one seat's ``private`` data (None: a
    spectator), every secret sampled from ``rng``: the other hands, family trees and face-down
    timeline cards, the deck's order (cards the seat sent to the bottom stay where it knows they
    are), and which tile lies face down where, turned how.

    :raises RuleError: ``bad_view`` when the view and private data do not fit together.
    """
    if view.get("game") != "sugi":
        raise RuleError("bad_view", "not a Sugi view")
    players = view["players"]
    s = State._blank(players, parts, random.Random(0))
    seat = view.get("you") if private is not None else None
    mine = private or {"hand": [], "family": None, "timeline": [], "deck_bottom": []}
    _sample_secrets(s, view, mine, seat, rng)
    s.samurai = [ARRIVED if p is None else p[0] * LANES + p[1] for p in view["samurai"]]
    s.pedestals = [COLOURS.index(c) for c in view["pedestals"]]
    s.ghost = ON_TEMPLE if view["ghost"] is None else view["ghost"][0] * LANES + view["ghost"][1]
    s.phase, s.round, s.round_start = view["phase"], view["round"], view["round_start"]
    s.edition = view.get("edition", 1)  # a view without it is from a host of edition 1
    s.seat = view["turn"] if view["turn"] is not None else 0
    s.last_placer = view["last_placer"]
    push = view["push"]
    if push is not None:
        s.pushing = tuple(COLOURS.index(c) for c in [push["samurai"], *push["waiting"]])
        s.ghost_dir = DIRECTIONS.index(push["ghost_direction"])
        back = push["from"]
        s.ghost_from = ON_TEMPLE if back is None else back[0] * LANES + back[1]
        # A view from before the ghost could pass samurai has no target: it stopped there.
        target = push.get("target")
        s.ghost_target = s.ghost if target is None else target[0] * LANES + target[1]
    if s.phase == MAINTENANCE:
        s.maintenance_left = (s.round_start - s.seat) % players or players
    s.origin = view["version"]
    if s.phase == OVER:
        result = view["result"]
        s.outcome = Outcome(tuple(result["scores"]), tuple(result["ranking"]),
                            tuple(result["winners"]), tuple(result["pedestals"]),
                            tuple(result["families"]), result["rounds"])
    return s


def replay(record: Data) -> tuple[State, list[Data]]:
    """Rebuild a game from its record; returns the state and every event, in order.

    The deal and every reshuffle come from the record (``deal``, ``reshuffles``); a record of
    an older shape without them has them from its seed. A record of a game not over keeps its
    reshuffles not yet reached in the state, for the actions still to be applied.

    :raises RuleError: ``bad_record`` for a malformed record, one whose deal or reshuffles
        cannot be, one that holds more reshuffles than its play made, or whose result differs
        from the replay's; or the rule's own code, with the action's number, for the first
        action that is not legal.
    """
    check_record(record, "sugi")
    config = SUGI.parse_config(_edition_known(record.get("config", {})))
    seed, actions = record["seed"], record["actions"]
    # Both, or (a record of an older shape) neither: one alone, or a deal null, was dealt or
    # reshuffled from the seed, quietly.
    if ("deal" in record) != ("reshuffles" in record) or record.get("deal", {}) is None:
        raise RuleError("bad_record", "a record has its deal (a map) and its reshuffles, or "
                        "(an older shape) neither")
    reshuffles = recorded_outcomes(record, "reshuffles")
    state = State.new(config["players"], seed, deal=record.get("deal"), edition=config["edition"])
    state.script = reshuffles
    events = replay_actions(state, actions)
    outcome = state.outcome
    check_replayed(state, record, "reshuffles", len(reshuffles), len(state.reshuffles),
                   None if outcome is None else outcome.to_dict())
    return state, events


def _edition_known(config: Any) -> Any:
    """A config stored before editions were numbered (no ``edition``) played edition 1."""
    if isinstance(config, dict) and "edition" not in config:
        return {**config, "edition": 1}
    return config


class Sugi(Rules, about=ABOUT):
    """Sugi behind the :class:`sagani_net.game.Game` seam."""

    action_type = Action
    words = words

    def new_state(self, config: Data, seed: int) -> State:
        return State.new(config["players"], seed, edition=_edition_known(config)["edition"])

    def replay(self, record: Data) -> tuple[State, list[Data]]:
        return replay(record)

    def determinize(
        self, view: Data, private: Data | None, seat: int | None, rng: random.Random
    ) -> State:
        return determinize(view if seat is None else {**view, "you": seat}, private, rng)

    def resample(self, state: GameState, seat: int, rng: random.Random) -> State:
        """A copy of ``state`` with what ``seat`` does not know sampled afresh, from what the
        seat sees and holds, as :func:`determinize` samples it (:func:`_sample_secrets`), and
        nothing of the truth's deal, generator or record kept."""
        assert isinstance(state, State)
        s = state.clone()
        seen = {"forest": state._forest(), "hands": [len(h) for h in state.hands],
                "timeline": [owner for _, _, owner in state.timeline],
                "deck": len(state.deck), "discard": state.discard}
        private = state.private(seat)
        assert private is not None
        _sample_secrets(s, seen, private, seat, rng)
        s.seed, s.history, s.origin = None, [], state.version
        s.deal, s.reshuffles, s.script = None, (), ()
        return s

    def static_data(self, config: Data) -> Data:
        return {**EDITION.to_data(), "colours": list(COLOURS), "directions": list(DIRECTIONS),
                "lanes": LANES, "columns": COLUMNS, "limit": timeline_limit(config["players"]),
                "hand": HAND_SIZE}


SUGI = Sugi()
