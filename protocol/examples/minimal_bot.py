#!/usr/bin/env python3
"""A minimal bot for every game the host serves, written from protocol/PROTOCOL.md alone.

It needs only pyzmq and msgpack, and no rules of any game: on its turn it asks the host for its
legal actions (`legal`) and plays one of them at random. Copy it, then replace `choose` with
something clever (the game's page under protocol/games/ says what the actions and views mean).

    python minimal_bot.py 127.0.0.1:47410 --game sugi       # a 2-player table, seat 1 for a bot
    sagani bot 127.0.0.1:47410 --table T --strategy greedy   # which someone must fill
    python minimal_bot.py 127.0.0.1:47410 --table T        # or join an existing table (any game)

It prints `table T` as soon as it has one, `seat S` once seated, and
`result scores=[..] ranking=[..] me=S` at the end. If the host has a standby (section 11), the
bot goes there when the host falls silent, and plays on with the same token.
Exit codes: 0 the game ended, 1 the host refused us, 2 the host is unreachable.
"""

import argparse
import os
import random
import sys
import time

import msgpack
import zmq

V = 1                      # protocol version
REQUEST_TIMEOUT_S = 2.5    # Lazy Pirate: wait this long for a reply ...
REQUEST_RETRIES = 3        # ... then reopen the socket and resend the same bytes, this many times
ACK_WAIT_S = 0.5           # after `accepted`, wait this long for its update, then `sync`


class Unreachable(Exception):
    pass


class Refused(Exception):
    pass


class Client:
    def __init__(self, address):
        address = address.removeprefix("tcp://")
        host, _, port = address.rpartition(":") if ":" in address else (address, "", "")
        self.endpoint = f"tcp://{host}:{port or 47410}"
        self.other = None      # the other host of the pair: the standby, once one is named
        self.ctx = zmq.Context.instance()
        # One fixed routing id: a reopened REQ socket takes the old one's place at once
        # (ZMQ_ROUTER_HANDOVER). It proves nothing: the nonce is what makes a retried create or
        # join get its first answer (PROTOCOL.md, section 2).
        self.routing_id = b"mb-" + os.urandom(8).hex().encode()
        self.next_id = random.getrandbits(40)
        self.req = self.sub = None
        self.topics = []
        self.heard_from = None     # the host whose broadcasts the SUB socket follows

    def request(self, type_, **fields):
        """One request, one reply, with Lazy Pirate retries of the very same bytes."""
        self.next_id += 1
        msg_id = self.next_id
        if type_ in ("create", "join") and "token" not in fields:
            # A new random nonce for each create or join, the same in its retries: a retry
            # gets the first answer (and its token), never a second table or seat.
            fields["nonce"] = os.urandom(16).hex()
        body = msgpack.packb({"v": V, "type": type_, "id": msg_id, **fields})
        tries = 0
        while True:
            if self.req is None:
                self.req = self.ctx.socket(zmq.REQ)
                self.req.setsockopt(zmq.LINGER, 0)
                self.req.setsockopt(zmq.ROUTING_ID, self.routing_id)
                self.req.setsockopt(zmq.REQ_CORRELATE, 1)
                # A receive timeout, not a poll: a late reply to an abandoned try can wake a
                # poll, and the socket then drops it for its correlation id.
                self.req.setsockopt(zmq.RCVTIMEO, int(REQUEST_TIMEOUT_S * 1000))
                self.req.connect(self.endpoint)
            self.req.send(body)
            try:
                reply = msgpack.unpackb(self.req.recv(), raw=False)
            except zmq.Again:
                reply = None
            if reply is not None:
                if reply.get("code") in ("rate_limited", "storage_failed"):
                    time.sleep(0.2)    # nothing was done: the same bytes again, a little later
                    continue
                if reply.get("code") != "not_active":
                    return reply
                # This host does not serve: after a moment, try the active one it names.
                self.keep_other(reply.get("active"))
                time.sleep(0.2)
            self.req.close()           # a REQ socket without its reply is stuck: start afresh
            self.req = None
            self.switch()              # the next try goes to the other host, if there is one
            tries += 1
            if tries > REQUEST_RETRIES:
                raise Unreachable(f"no host served {type_}")

    def keep_other(self, endpoint):
        """Keep the other host's address (welcome, joined, a heartbeat or not_active name
        it); nil never replaces one we hold: a host whose standby died names none."""
        if endpoint and endpoint != self.endpoint:
            self.other = endpoint

    def switch(self):
        """Go to the other host of the pair, if we know one (section 11)."""
        if self.other:
            if self.req is not None:   # connected to the host we leave: the next try opens anew
                self.req.close()
                self.req = None
            self.endpoint, self.other = self.other, self.endpoint

    def hello(self):
        """hello -> welcome; (re)connect the SUB socket to the port it names, resubscribe."""
        w = self.request("hello", client="minimal_bot")
        if w["type"] != "welcome":
            raise Refused(w)
        self.heartbeat_s = w["heartbeat_s"]
        self.heard_from = self.endpoint
        self.keep_other(w["standby"])
        if self.sub is not None:
            self.sub.close()
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        host = self.endpoint.rpartition(":")[0]   # where requests go (`pub` may be 0.0.0.0)
        self.sub.connect(f"{host}:{w['pub_port']}")
        for topic in self.topics:
            self.sub.setsockopt(zmq.SUBSCRIBE, topic)

    def subscribe(self, table):
        topic = f"table.{table}.".encode()
        self.topics.append(topic)
        self.sub.setsockopt(zmq.SUBSCRIBE, topic)


def legal_actions(c, table, token, version):
    """Every legal action of our seat on `version`, page by page; or the refusal, which
    carries a fresh snapshot (the table moved on, or it is not our turn)."""
    actions, page = [], 0
    while page is not None:
        r = c.request("legal", table=table, token=token, version=version, page=page)
        if r["type"] != "legal":
            return None, r
        actions += r["actions"]
        page = r["next"]
    return actions, None


def choose(actions, state, rng):
    """One of the host's legal actions, at random. A bot that wants to choose better reads
    `state["view"]` (the public view) and `state["private"]`, its seat's private data as the
    host has it now (nil in a game that gives a seat nothing private)."""
    return rng.choice(actions)


def loaded(snapshot):
    """A snapshot as our state: its private data is as of its own `seq`."""
    return {**snapshot, "private_seq": snapshot["seq"]}


def keep_private(state, seq, private):
    """Keep the newest of our seat's private data: the highest `seq` (section 3, point 6)."""
    if seq >= state["private_seq"]:
        state["private"], state["private_seq"] = private, seq


def play(c, table, seat, token, state, rng):
    """Follow the table (Clone pattern) and act on our turns until the game is over."""

    def sync():
        r = c.request("sync", table=table, token=token)
        if r["type"] != "snapshot":
            raise Refused(r)
        return loaded(r)

    state = loaded(state)

    heard = time.monotonic()
    awaiting = None            # (seq, deadline) of the update our accepted action caused
    while state["status"] != "over":
        if c.endpoint != c.heard_from:
            # A request was answered by the other host: the host moved, and so do its
            # broadcasts (section 11). Follow it now, rather than wait out the old one's silence.
            print("host moved: hello, resubscribe, sync", file=sys.stderr)
            c.hello()
            state = sync()
            heard = time.monotonic()
            continue
        now = time.monotonic()
        if awaiting and (state["seq"] >= awaiting[0] or now > awaiting[1]):
            if state["seq"] < awaiting[0]:
                state = sync()
            awaiting = None
        if state["status"] == "running" and state["turn"] == seat and not awaiting:
            actions, refusal = legal_actions(c, table, token, state["version"])
            if refusal is not None:
                if "snapshot" not in refusal:
                    raise Refused(refusal)
                state = loaded(refusal["snapshot"])   # stale_version, not_your_turn: again
                continue
            action = choose(actions, state, rng)
            r = c.request("act", table=table, seat=seat, token=token,
                          version=state["version"], action=action)
            if r["type"] == "accepted":
                keep_private(state, r["seq"], r["private"])
                awaiting = (r["seq"], time.monotonic() + ACK_WAIT_S)
            elif "snapshot" in r:   # stale_version, not_your_turn, illegal_action...: decide again
                if r["code"] != "already_accepted":   # (that one was played: our retry's answer)
                    print(f"refused {action}: {r['code']} {r.get('rule', '')}", file=sys.stderr)
                state = loaded(r["snapshot"])
            else:
                raise Refused(r)
            continue
        if c.sub.poll(100):
            topic, body = c.sub.recv_multipart()
            msg = msgpack.unpackb(body, raw=False)
            heard = time.monotonic()
            if topic != f"table.{table}.".encode():
                continue
            if msg["type"] == "update":
                if msg["seq"] == state["seq"] + 1:
                    state = {**state, **{k: msg[k] for k in
                                         ("seq", "version", "status", "turn", "seats", "view")}}
                    if seat in msg["private"]:   # our private data changed: ask for it at once
                        r = c.request("private", table=table, token=token)
                        if r["type"] != "private":
                            raise Refused(r)
                        keep_private(state, r["seq"], r["private"])
                elif msg["seq"] > state["seq"]:
                    state = sync()        # a gap: we missed an update
            elif msg["type"] == "heartbeat":
                c.keep_other(msg["standby"])  # a standby that came after we joined
                if msg["seq"] > state["seq"]:
                    state = sync()        # the table moved on without us hearing it
        elif time.monotonic() - heard > 3 * c.heartbeat_s:
            print("host silent: to its standby if it has one; hello, resubscribe, sync",
                  file=sys.stderr)
            if c.endpoint == c.heard_from:   # (not when a request this turn went over already)
                c.switch()
            c.hello()
            state = sync()
            heard = time.monotonic()
    return state


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("address", help="the host's request address: HOST[:PORT] or tcp://HOST:PORT")
    p.add_argument("--table", help="join this table instead of creating one")
    p.add_argument("--game", default="sagani",
                   help="the game of the table we create: a name from welcome.games")
    p.add_argument("--players", type=int, default=2,
                   help="players of the table we create (seats 1.. kept for bots); 1: solo")
    p.add_argument("--name", default="minimal_bot")
    p.add_argument("--seed", type=int, help="the bot's own randomness")
    args = p.parse_args(argv)
    rng = random.Random(args.seed)
    c = Client(args.address)
    try:
        c.hello()
        table = args.table
        if table is None:
            n = args.players
            r = c.request("create", game=args.game, config={"players": n},
                          bots=list(range(1, n)))
            if r["type"] != "created":
                raise Refused(r)
            table = r["table"]
        print(f"table {table}", flush=True)
        c.subscribe(table)                    # subscribe first, then the snapshot
        # On our own table we sit as a player (seat 0; seat 1 is kept for a bot). On someone
        # else's we come as a bot: a bot takes the first free bot seat, else any free seat.
        role = "bot" if args.table else "player"
        r = c.request("join", table=table, role=role, name=args.name)
        if r["type"] != "joined":
            raise Refused(r)
        seat, token = r["seat"], r["token"]   # keep the token: it is the seat's only key
        c.keep_other(r["standby"])
        print(f"seat {seat}", flush=True)
        state = play(c, table, seat, token, r["snapshot"], rng)
    except Refused as e:
        err = e.args[0]
        print(f"refused: {err.get('code')}: {err.get('message')}", file=sys.stderr)
        return 1
    except Unreachable as e:
        print(f"unreachable: {e}", file=sys.stderr)
        return 2
    result = state["view"]["result"]
    print(f"result scores={result['scores']} ranking={result['ranking']} me={seat}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
