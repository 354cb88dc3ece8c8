"""The two-seat race solver (guandan_cli/engine/endgame.py): against a plain minimax written
here from the rules, on a known failure of ``search``, on positions of real deals, and within
its node budget."""

from __future__ import annotations

import random

from guandan_cli.strategies.search import SearchStrategy
from guandan_cli.strategies.search.endgame import OUT_FIRST_A, Position, Solver, solve

from guandan_cli.engine import all_plays, deal_hands, legal_plays
from guandan_cli.engine.cards import full_deck, parse_cards, wild_face
from guandan_cli.engine.combos import Combo
from guandan_cli.engine.deal import PASS, PLAY, Deal, DealSetup, Event, action_text
from guandan_cli.engine.observation import observe
from guandan_cli.engine.rules import get_ruleset

RULESETS = ("cgr2022", "jiangsu2017")


# ---------------------------------------------------------------- a plain minimax, from the rules


def plain_winner(
    hands: dict, to_move: int, top, owner: int, passes: int, finished, rules: str, level: int
) -> int:
    """The seat that wins the race with both seats playing perfectly: no memo, every move of
    ``legal_plays`` (and the pass when following) tried at every turn. A seat that plays its
    last cards wins; a pass ends the trick when the owner is in play (it leads), or after both
    seats passed when the owner is out (rules.md §7.2, §12.1: its partner leads under cgr2022,
    and under jiangsu2017 unless the owner was 上游, the next seat in play after it)."""
    other = next(s for s in hands if s != to_move)
    for play in legal_plays(hands[to_move], level, top):
        rest = list(hands[to_move])
        for f in play.cards:
            rest.remove(f)
        if not rest:
            return to_move
        after = {to_move: tuple(rest), other: hands[other]}
        if plain_winner(after, other, play, to_move, 0, finished, rules, level) == to_move:
            return to_move
    if top is None:
        return other
    if owner == other:
        return plain_winner(hands, other, None, -1, 0, finished, rules, level)
    if passes == 0:
        return plain_winner(hands, other, top, owner, 1, finished, rules, level)
    return plain_winner(
        hands, plain_leader(owner, hands, finished, rules), None, -1, 0, finished, rules, level
    )


def plain_leader(owner: int, hands: dict, finished, rules: str) -> int:
    """Who leads once both seats passed on the last play of ``owner``, a seat that went out
    (rules.md §7.2, §12.1)."""
    if rules == "cgr2022" or owner == finished[0]:
        return owner ^ 2
    return next((owner + k) % 4 for k in (1, 2, 3) if (owner + k) % 4 in hands)


def random_position(rng: random.Random) -> Position:
    """Two hands of 1..6 cards drawn from a few ranks (so that they combine), often with ♥ level
    cards (wild) and a run of one suit (straight flush material), seats and finishers at random,
    and a trick state at random: a lead, the other seat's play to beat, or a play of the seat
    that went out second (passed once or not yet)."""
    level = rng.randrange(13)
    low = rng.randrange(-1, 9)
    ranks = [(low + i) % 13 for i in range(5)]
    pool = [r * 4 + s for r in ranks for s in range(4)] * 2 + [52, 53] * 2 + [wild_face(level)] * 2
    rng.shuffle(pool)
    sizes = [rng.randint(1, 6), rng.randint(1, 6)]
    dealt: list[list[int]] = [[], []]
    if rng.random() < 0.5:  # one hand holds 4 or 5 cards of a straight flush
        k = rng.randrange(2)
        sizes[k] = max(sizes[k], 5)
        suit = rng.randrange(4)
        dealt[k] = [r * 4 + suit for r in ranks][: rng.choice((4, 5))]
        if len(dealt[k]) == 4 or rng.random() < 0.3:
            dealt[k].append(wild_face(level))
    for f in pool:
        k = next((k for k in (0, 1) if len(dealt[k]) < sizes[k]), None)
        if k is not None and dealt[0].count(f) + dealt[1].count(f) < 2:
            dealt[k].append(f)
    a, b = dealt[0][:6], dealt[1][:6]
    rest: list[int] = []  # the cards of the play to beat come from the others
    for f in pool:
        if (a + b + rest).count(f) < 2 and len(rest) < 8:
            rest.append(f)
    seats = rng.choice([(0, 1), (1, 0), (0, 3), (3, 0), (1, 2), (2, 1), (2, 3), (3, 2)])
    out = [s for s in range(4) if s not in seats]
    rng.shuffle(out)
    top, owner, passes = None, -1, 0
    kind = rng.randrange(4)
    if kind and rest:
        plays = legal_plays(rest[: rng.randint(1, len(rest))], level)
        top = rng.choice(plays)
        owner = seats[1] if kind == 1 else out[1]
        passes = int(kind == 3)
    rules = rng.choice(RULESETS)
    return Position((tuple(sorted(a)), tuple(sorted(b))), seats, tuple(out), level, top, owner, passes, rules)


def test_the_solver_agrees_with_a_plain_minimax_on_small_positions():
    rng = random.Random(2024)
    seen = {"wild": 0, "straight_flush": 0, "out": 0, "jiangsu2017": 0, "win": 0}
    for _ in range(400):
        p = random_position(rng)
        hands = dict(zip(p.seats, p.hands))
        expected = plain_winner(hands, p.seats[0], p.top, p.top_owner, p.passes, p.finished, p.rules, p.level)
        result = solve(p, node_budget=10**6)
        assert result.win == (expected == p.seats[0]), p
        for move, wins in result.moves:  # every root move, against the minimax after it
            child = _after(p, move)
            if child is None:
                assert wins
                continue
            winner = plain_winner(
                dict(zip(child.seats, child.hands)),
                child.seats[0],
                child.top,
                child.top_owner,
                child.passes,
                child.finished,
                child.rules,
                child.level,
            )
            assert wins == (winner == p.seats[0]), (p, action_text(move))
        cards = p.hands[0] + p.hands[1]
        seen["wild"] += wild_face(p.level) in cards
        seen["straight_flush"] += any(
            c.type == "straight_flush" for h in p.hands for c in legal_plays(h, p.level)
        )
        seen["out"] += p.top_owner in p.finished
        seen["jiangsu2017"] += p.rules == "jiangsu2017"
        seen["win"] += bool(result.win)
    assert min(seen.values()) >= 40, seen


def every_choice_winner(
    hands: dict, to_move: int, top, owner: int, passes: int, p: Position, memo: dict
) -> int:
    """``plain_winner`` with every card choice of every declaration (``all_plays``: suits, wild
    cards), memoised on the hands, the play to beat and the trick."""
    key = (tuple(sorted(hands.items())), to_move, top and (top[0], top[1], len(top[2])), owner, passes)
    if key not in memo:
        other = next(s for s in hands if s != to_move)
        memo[key] = other
        for play in all_plays(hands[to_move], p.level, top):
            rest = list(hands[to_move])
            for f in play.cards:
                rest.remove(f)
            after = {to_move: tuple(rest), other: hands[other]}
            if not rest or every_choice_winner(after, other, play, to_move, 0, p, memo) == to_move:
                memo[key] = to_move
                return to_move
        if top is not None:
            if owner == other:
                memo[key] = every_choice_winner(hands, other, None, -1, 0, p, memo)
            elif passes == 0:
                memo[key] = every_choice_winner(hands, other, top, owner, 1, p, memo)
            else:
                leader = plain_leader(owner, hands, p.finished, p.rules)
                memo[key] = every_choice_winner(hands, leader, None, -1, 0, p, memo)
    return memo[key]


def test_the_engine_s_one_card_choice_per_declaration_loses_no_race():
    """``legal_plays`` lists one card choice per declaration; on small positions rich in wild
    cards and straight flushes, the races it decides are those that every choice decides."""
    rng = random.Random(99)
    for _ in range(60):
        p = random_position(rng)
        winner = every_choice_winner(
            dict(zip(p.seats, p.hands)), p.seats[0], p.top, p.top_owner, p.passes, p, {}
        )
        assert solve(p, 10**6).win == (winner == p.seats[0]), p


def _after(p: Position, move) -> Position | None:
    """The position after ``move`` at ``p`` as a deal plays it (None when the mover goes out)."""
    deal = _deal_at(p)
    deal.apply(move)
    if deal.phase == "over" or len(deal.finished) == 3:
        return None
    return Position.of_deal(deal)


def _deal_at(p: Position) -> Deal:
    hands: list[tuple[int, ...]] = [(), (), (), ()]
    for s, h in zip(p.seats, p.hands):
        hands[s] = h
    events = [] if p.top is None else [Event(PLAY, p.top_owner, p.top)]
    events += [Event("pass", p.seats[1])] * p.passes
    setup = DealSetup(hands=tuple(hands), level=p.level, rules=get_ruleset(p.rules))
    return Deal.from_position(
        setup, events, to_move=p.seats[0], finished=p.finished, top=p.top, top_owner=p.top_owner
    )


# ---------------------------------------------------------------- a failure of search, built again


def race_deal(hand, other, top, level, finished=(2, 3)) -> Deal:
    """A deal at a race: seat 0 holds ``hand`` and is to move on ``top``, seat 1's play (``None``:
    seat 0 leads), holding ``other``; the seats ``finished`` went out playing every other card
    of the 108 as singles (a record the other hand can be read from)."""
    rest = list(full_deck())
    for f in (*hand, *other, *(top.cards if top else ())):
        rest.remove(f)
    events = [
        Event(PLAY, finished[i % 2], Combo("single", f >> 2 if f < 52 else f - 39, (f,)), lead=True)
        for i, f in enumerate(rest)
    ]
    if top is not None:
        events.append(Event(PLAY, 1, top, lead=True))
    hands = (tuple(sorted(hand)), tuple(sorted(other)), (), ())
    setup = DealSetup(hands=hands, level=level, rules=get_ruleset("cgr2022"))
    return Deal.from_position(
        setup, events, to_move=0, finished=finished, top=top, top_owner=-1 if top is None else 1
    )


#: search passed here (20 cards against 5, the opponent owning the top full house), and the
#: opponent led its full house QQQ55 and went out
STORY = (
    "H2 S3 C3 D3 S6 C6 D6 S7 C7 S9 D9 CT HJ CJ SK HK CK DK DK CA",
    "C5 D5 HQ DQ DQ",
    "full_house:A SA HA CA S3 H3",
    2,  # the level: 4
)


def test_only_the_four_card_bomb_of_kings_wins_where_search_passed():
    hand, other, top, level = (
        parse_cards(STORY[0]),
        parse_cards(STORY[1]),
        Combo.from_text(STORY[2]),
        STORY[3],
    )
    result = solve(Position.race(hand, other, level, top))
    outcome = {action_text(a): w for a, w in result.moves}
    assert outcome == {"bomb:K SK HK CK DK": True, "bomb:K SK HK CK DK DK": False, "pass": False}
    # the same from seat 0's own view of a deal at that moment, and search plays the bomb
    deal = race_deal(hand, other, top, level)
    obs = observe(deal, 0)
    position = Position.of_observation(obs)
    assert position == Position.race(hand, other, level, top) and position == Position.of_deal(deal)
    bot = SearchStrategy(0, random.Random(1), worlds=2)
    assert action_text(bot.choose_play(obs)) == "bomb:K SK HK CK DK"
    values = {action_text(v.action): v for v in bot.evaluate(obs, [PASS, *obs.legal_actions[:-1]])}
    assert {a: (v.mean, v.low, v.high, v.exact) for a, v in values.items()} == {
        "pass": (1, 1, 1, True),  # seat 0's partner went out first: +2 when seat 0 wins the race
        "bomb:K SK HK CK DK": (2, 2, 2, True),
        "bomb:K SK HK CK DK DK": (1, 1, 1, True),
    }
    assert values["bomb:K SK HK CK DK"].gain == 1 and bot.solved == 2


# ---------------------------------------------------------------- positions of real deals


def two_seat_deals(count: int, seed: int, kinds=("heuristic", "greedy", "random")):
    """Deals played by the given bots (one kind a deal, in turn, both rulesets in turn) up to the
    first moment with exactly two seats holding cards."""
    from guandan_cli.strategies import load_strategy

    for i in range(count):
        rng = random.Random(seed * 1000 + i)
        rules = get_ruleset(RULESETS[i % 2])
        setup = DealSetup(
            hands=deal_hands(rng), level=rng.randrange(13), first_leader=rng.randrange(4), rules=rules
        )
        deal = Deal(setup)
        cls = load_strategy(kinds[i % len(kinds)])
        players = [cls(s, random.Random(seed * 1000 + i * 4 + s)) for s in range(4)]
        for p in players:
            p.start_deal(0, observe(deal, p.seat))
        while deal.phase != "over" and len(deal.finished) < 2:
            deal.apply(players[deal.to_move].choose_play(observe(deal, deal.to_move)))
        if deal.phase != "over":
            yield deal


def test_a_seat_reads_the_race_from_its_own_view_as_the_deal_holds_it():
    deals = list(two_seat_deals(40, 1))
    assert len(deals) >= 15
    for deal in deals:
        obs = observe(deal, deal.to_move)
        assert Position.of_observation(obs, deal.rules.name) == Position.of_deal(deal)
        assert Position.of_observation(observe(deal, deal._nxt[deal.to_move])) is None  # not its turn


def test_the_solver_s_winner_wins_the_deal_whatever_the_other_seat_plays():
    """From real deals at two seats left, the side the solver says wins plays the solver's moves
    in the engine's own deal, the other side plays at random: the predicted seat is 三游, and the
    deal's outcome is ``Position.levels``."""
    rng = random.Random(5)
    played = 0
    for deal in two_seat_deals(60, 2):
        position = Position.of_deal(deal)
        solver = Solver(position.level)
        result = solve(position, 20_000, solver)
        if result.exceeded:
            continue
        winner = position.seats[0] if result.win else position.seats[1]
        while deal.phase != "over":
            now = Position.of_deal(deal)
            if deal.to_move == winner:
                solver.start(20_000)
                move = solver.winning_move(now)
                assert move is not None, now
            else:
                move = rng.choice(deal.legal_actions())
            deal.apply(move)
        assert deal.result.finish_order[2] == winner
        team = position.seats[0] & 1
        levels = deal.result.upgrade if deal.result.winner_team == team else -deal.result.upgrade
        assert levels == position.levels(bool(result.win))
        played += 1
    assert played >= 20


def test_a_search_past_its_budget_says_so_and_never_answers_wrong():
    rng = random.Random(7)
    checked = exceeded = 0
    positions = [random_position(rng) for _ in range(40)] + [
        Position.of_deal(d) for d in two_seat_deals(20, 3)
    ]
    for p in positions:
        truth = solve(p, 50_000)
        if truth.exceeded:
            continue
        for budget in (1, 3, 10, 30, 100, 1000):
            solver = Solver(p.level)
            r = solve(p, budget, solver)
            if r.exceeded:
                exceeded += 1
                assert r.moves == () and r.winning == () and r.nodes == budget + 1
                again = solve(p, 50_000, solver)  # what it kept is exact
                assert (again.win, again.moves) == (truth.win, truth.moves)
            else:
                checked += 1
                assert (r.win, r.moves) == (truth.win, truth.moves) and r.nodes <= budget
    assert checked >= 100 and exceeded >= 100


# ---------------------------------------------------------------- search at two seats left


def test_search_never_loses_a_race_the_solver_proves_it_can_win():
    """Every decision of two search seats racing on from real deals: where a winning move
    exists (proved within a budget below the bot's own), search plays a winning move."""
    decided = 0
    for deal in two_seat_deals(30, 4, kinds=("heuristic",)):
        bots = {s: SearchStrategy(s, random.Random(s), worlds=2, candidates=3) for s in range(4)}
        for s, bot in bots.items():
            bot.start_deal(0, observe(deal, s))
        while deal.phase != "over":
            position = Position.of_deal(deal)
            truth = solve(position, 20_000)
            obs = observe(deal, deal.to_move)
            move = bots[deal.to_move].choose_play(obs)
            if truth.win:
                assert Solver(position.level).wins_after(position, move), (position, action_text(move))
                decided += 1
            deal.apply(move)
    assert decided >= 40


def test_search_past_its_node_budget_or_with_the_solver_off_goes_to_the_rollouts(monkeypatch):
    from guandan_cli.strategies import load_strategy
    from guandan_cli.strategies.search import endgame

    hand, other, top, level = (
        parse_cards(STORY[0]),
        parse_cards(STORY[1]),
        Combo.from_text(STORY[2]),
        STORY[3],
    )
    obs = observe(race_deal(hand, other, top, level), 0)
    for make in (
        lambda: SearchStrategy(0, random.Random(1), worlds=2, endgame_nodes=5),
        lambda: load_strategy("search:worlds=2+endgame_nodes=0")(0, random.Random(1)),
    ):
        bot = make()
        assert bot.choose_play(obs) in obs.legal_actions
        bot = make()
        values = bot.evaluate(obs, list(obs.legal_actions))
        assert not any(v.exact for v in values) and values[0].n == 2
        assert bot.solved == 0 and bot.unsolved == (1 if bot.endgame_nodes else 0)
    # a solver forgets what it knows past its memo limit, when a new budget starts
    monkeypatch.setattr(endgame, "MEMO_LIMIT", 10)
    solver = Solver(level)
    solve(Position.race(hand, other, level, top), 10**6, solver)
    assert len(solver.memo) > 10
    solver.start()
    assert not solver.memo and not solver.killer and solver.nodes == 0


def test_one_solver_tells_apart_a_finisher_s_plays_that_the_seat_to_move_cannot_beat():
    """Two finishers' last plays that seat 0 cannot beat: after its pass, seat 1 answers the
    single 5 and goes out, not the single A; one solver, both positions."""
    hand, other = parse_cards("S3 D3"), parse_cards("D6")
    low, high = Combo.from_text("single:5 C5"), Combo.from_text("single:A CA")
    solver = Solver(8)
    for top, seat0_wins in ((low, False), (high, True), (low, False)):
        p = Position((hand, other), (0, 1), (3, 2), 8, top, 2)  # seat 2's last play; 接风: seat 0 leads
        assert p.state()[3] == OUT_FIRST_A and solver.wins(*p.state()) == seat0_wins
