"""sagani_net: Sagani over a LAN.

The layers, each importing only those below it:

- rules: ``tiles`` (the 72 tiles, arrow geometry), ``engine`` (the state, the turn sequence,
  views, records), ``game`` (the small interface the host and bots see a game through);
- wire: the top-level ``protocol`` package (messages, msgpack codec, errors, PROTOCOL.md);
- network: ``store`` (SQLite), ``host`` (the socket loop), ``client`` (Lazy Pirate requests and
  Clone-style sync), ``security`` (CURVE keys, join codes), ``limits``, ``discovery`` (zeroconf);
- policies: ``bots`` (random, greedy, mcts, the network runner, tournaments);
- front ends: the top-level ``cli`` package (the ``sagani`` command and the console).
"""
