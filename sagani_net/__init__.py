"""sagani_net: board games over a LAN (Sagani, Sagrada and Sugi), one host, one protocol.

The layers, each importing only those below it:

- the seam: ``game`` (the small interface the host, the bots and the console see a game
  through) and ``gameui`` (a game's part of the console: ``GameUI`` and its drawing helpers);
  beside them ``caches`` (``BoundedCache``: every cache keyed by what a client sends, a
  game's or the host's);
- the games: ``games`` (the registry: ``get_game``, ``game_part``) and one package per game,
  ``games.sagani``, ``games.sagrada``, ``games.sugi``, each with its ``rules``, ``bots``,
  ``ui`` and ``words``;
- wire: ``sagani_net.protocol``, from the project's ``protocol/`` folder (messages, msgpack
  codec, errors, PROTOCOL.md);
- network: ``store`` (SQLite), ``tables`` (what each request does to the games, on an
  injected clock), ``quotas`` and ``recovery`` (per-address shares, a failing data dir),
  ``host`` (the sockets and the loop), ``standby`` (a standby host that takes over),
  ``client`` (Lazy Pirate requests and Clone-style sync), ``peers`` and ``limits`` (what one
  peer may cost the host), ``security`` (CURVE keys, join codes), ``private_files``
  (owner-only files), ``discovery`` (zeroconf);
- policies: ``bots`` (random, greedy, mcts, the network runner, house bots, tournaments) and
  ``analysis`` (after the game: the search's verdict on every decision of a record); the
  one arrow that runs back up: ``tables`` asks ``bots.runner.think`` for an away player's
  stand-in move, imported inside that function;
- front ends: ``sagani_net.cli``, from the project's ``cli/`` folder (the ``sagani`` command
  and the console shell), which nothing else here imports.
"""

__version__ = "0.1.0"

#: The largest seed a game is dealt from (the host draws them in 0..2^63-1): what a record, a
#: request and the command line may hold. Here, where a command line reads it without
#: importing the games.
MAX_SEED = 2**63 - 1
