"""Dealing, seating, views, events and the match (docs/rules.md: seats, deal, match; docs/variants.md)."""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import (
    Match,
    apply,
    deal,
    dealer_for_hand,
    draw_cards,
    event_for,
    from_json,
    list_variants,
    player_view,
    score_hand,
    seats_by_draw,
    shuffled_deck,
)
from games.engine.cards import is_red_three, is_wild
from games.engine.scoring import match_decision
from games.engine.variants import get_rules

SEED = "5" * 64


@pytest.mark.parametrize(
    ("variant", "players", "size"),
    [
        ("classic", 4, 11),
        ("classic", 2, 15),
        ("family", 2, 11),
        ("family", 4, 11),
        ("party", 2, 15),
        ("party", 3, 13),
        ("party", 4, 12),
        ("party", 6, 12),
        ("tiles", 4, 14),
    ],
)
def test_it_deals_the_right_number_of_cards_and_replaces_red_threes(variant, players, size):
    for n in range(30):
        seed = f"{n:064x}"
        t = deal(variant, players, seed)
        first = (t.dealer + 1) % players
        for seat, hand in enumerate(t.hands):
            extra = 1 if variant == "tiles" and seat == first else 0
            assert len(hand) == size + extra
            assert not any(is_red_three(c) for c in hand)
        assert t.turn == first
        assert t.phase == ("discard" if variant == "tiles" else "draw")
        if variant == "tiles":
            assert t.discard == []
        else:
            assert t.discard and not get_rules(variant).upcard_covered(t.discard[-1])
        assert t.all_cards() == Counter(get_rules(variant).deck())


def test_the_deal_follows_the_shuffled_deck_one_card_at_a_time():
    deck = shuffled_deck(SEED, "classic")
    t = deal("classic", 4, SEED)
    # Without red threes in the first 45 cards, the deal is exactly the deck dealt round.
    seed = next(
        f"{n:064x}"
        for n in range(200)
        if not any(is_red_three(c) for c in shuffled_deck(f"{n:064x}", "classic")[:48])
    )
    deck = shuffled_deck(seed, "classic")
    t = deal("classic", 4, seed)
    for i, seat in enumerate([0, 1, 2, 3] * 11):
        assert deck[i] in t.hands[seat]
    assert t.hands[0] == deck[0:44:4]
    upcards = []
    for card in deck[44:]:
        upcards.append(card)
        if not (is_wild(card) or card[0] == "3"):
            break
    assert t.discard == upcards
    assert t.stock == deck[44 + len(upcards) :]


def test_red_threes_in_the_deal_are_replaced_from_the_top_in_turn_order():
    for n in range(300):
        seed = f"{n:064x}"
        deck = shuffled_deck(seed, "classic")
        t = deal("classic", 4, seed)
        reds = [c for c in deck[:44] if is_red_three(c)]
        if reds:
            assert sum(len(r) for r in t.red_threes) >= len(reds)
            return
    pytest.fail("no seed with a red three dealt")


def test_the_dealer_rotates_to_the_left():
    assert [dealer_for_hand(4, k) for k in range(1, 6)] == [3, 0, 1, 2, 3]
    assert [dealer_for_hand(2, k) for k in range(1, 4)] == [1, 0, 1]


def test_seating_by_the_draw_puts_the_two_highest_together():
    # docs/rules.md#players-sides-and-seats: A high ... 2 low, ties by suit S > H > D > C.
    assert seats_by_draw(["KS", "AS", "2C", "KH"], 2) == [2, 0, 3, 1]
    assert seats_by_draw(["5C", "5S"], 2) == [1, 0]
    seats = seats_by_draw(["4C", "AS", "KD", "9H", "QS", "JD"], 3)
    assert seats[1] == 0 and seats[2] == 3 and sorted(seats) == list(range(6))


def test_the_seating_draw_skips_jokers_and_repeated_cards():
    for n in range(50):
        drawn = draw_cards(f"{n:064x}", 4)
        assert "JK" not in drawn and len(set(drawn)) == 4


def test_a_spectator_sees_no_hand_and_a_player_only_their_own():
    t = deal("classic", 4, SEED)
    view = player_view(t, 1)
    assert view["hand"] == t.hands[1] and "hands" not in view and "stock" not in view
    assert view["stock_size"] == len(t.stock) and view["hand_sizes"] == [len(h) for h in t.hands]
    assert view["frozen"] is True and view["minimum"] == 50
    spectator = player_view(t, None)
    assert "hand" not in spectator and "seat" not in spectator


def test_tiles_views_carry_a_display_form():
    t = deal("tiles", 4, SEED)
    view = player_view(t, 0)
    assert set(view["display"]) >= set(view["hand"])
    names = {"AH": "1 red", "TC": "10 blue", "KD": "13 yellow", "7S": "7 black", "JK": "joker"}
    from games.engine import tile_name

    for code, name in names.items():
        assert tile_name(code) == name


def test_other_players_drawn_cards_are_hidden_in_events():
    t = deal("classic", 4, SEED)
    outcome = apply(t, t.turn, {"type": "draw"})
    draw = next(e for e in outcome.events if e["type"] == "draw")
    assert event_for(draw, t.turn)["cards"] == draw["cards"]
    hidden = event_for(draw, (t.turn + 1) % 4)
    assert "cards" not in hidden and hidden["count"] == 1
    assert "private" not in hidden


def test_the_match_needs_the_target_and_a_single_leader():
    rules = get_rules("classic")
    settings = rules.resolve_options({})
    assert match_decision(rules, settings, [5000, 4000], 7) == (True, 0)
    assert match_decision(rules, settings, [4995, 4000], 7) == (False, None)
    assert match_decision(rules, settings, [5100, 5100], 7) == (False, None)
    assert match_decision(rules, {**settings, "target": 3000}, [100, 3000], 2) == (True, 1)
    party = get_rules("party")
    assert match_decision(party, party.resolve_options({}), [5000, 10, 20], 3) == (False, None)
    assert match_decision(party, party.resolve_options({}), [5005, 10, 20], 3) == (True, 0)
    tiles = get_rules("tiles")
    assert match_decision(tiles, tiles.resolve_options({"match": "one_round"}), [10, 20], 1) == (
        True,
        1,
    )
    assert match_decision(tiles, tiles.resolve_options({"match": "three_rounds"}), [10, 20], 2) == (
        False,
        None,
    )
    assert match_decision(tiles, tiles.resolve_options({"match": "three_rounds"}), [30, 20], 3) == (
        True,
        0,
    )
    assert match_decision(tiles, tiles.resolve_options({}), [10000, 20], 9) == (True, 0)


def test_the_match_driver_deals_with_the_carried_scores_and_next_dealer():
    seeds = iter([f"{n:064x}" for n in range(1, 50)])
    match = Match("classic", 4, seeds, options={"target": 50000})
    first = match.table
    assert first is not None and first.dealer == 3 and first.hand == 1
    # End hand 1 by loading a table where the stock is empty and the pile cannot be taken.
    data = first.to_json()
    data["stock"] = []
    data["discard"] = ["JK"]
    match.table = from_json(data)
    match.act(match.table.turn, {"type": "draw"})
    assert len(match.hands) == 2 and match.hands[0].result is not None
    second = match.table
    assert second is not None and second.dealer == 0 and second.hand == 2
    assert second.scores == match.hands[0].result.totals
    assert score_hand  # imported API


def test_the_variant_listing_names_rules_players_and_options():
    listing = {v["name"]: v for v in list_variants()}
    assert set(listing) == {"classic", "family", "party", "tiles"}
    classic = listing["classic"]
    assert classic["players"] == [2, 4] and classic["deck_size"] == 108
    options = {o["name"]: o for o in classic["options"]}
    assert options["black_three"]["choices"] == ["freeze", "stop"]
    assert options["ask_partner"]["default"] is False
    assert options["target"]["default"] == 5000
    assert options["seating"]["choices"] == ["draw", "invitation", "random"]
    assert listing["party"]["players"] == [2, 3, 4, 6] and listing["party"]["deck_size"] == 110
    assert {o["name"] for o in listing["tiles"]["options"]} == {"seating", "match"}
    assert listing["tiles"]["deck_size"] == 106


@pytest.mark.parametrize("variant", ["classic", "tiles"])
def test_a_view_of_a_later_hand_keeps_the_cards_and_the_hand_number_apart(variant):
    t = deal(variant, 4, SEED, hand_number=3)
    view = player_view(t, 2)
    assert view["hand"] == t.hands[2]
    assert view["hand_number"] == 3
    assert from_json(t.to_json()).hand == 3


def test_the_tiles_pile_is_never_reported_frozen():
    t = deal("tiles", 4, SEED)
    assert all(player_view(t, seat)["frozen"] is False for seat in range(4))
