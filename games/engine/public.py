"""Facts about a table that every player can see, for decisions the others watch.

The forced draw of play by email (games/services/moves.py, docs/fair-play.md) is a public
move: if it depended on a hidden hand, every turn with or without it would tell the table
something about that hand. These functions read only what a spectator sees: the discard
pile, the melds, the red threes laid out, the size of each hand and of the stock. Never a
card of a hand or of the stock (tests/engine/test_public.py deals the hidden cards again and
checks that no answer changes).
"""

from __future__ import annotations

from .table import Table


def pile_closed(t: Table, seat: int) -> bool:
    """True when the table alone shows that ``seat`` may not take the discard pile now,
    whatever their hand holds (pile.py's refusals that need no look at a hand)."""
    rules = t.rules
    if not t.discard:
        return True
    if rules.is_pile_blocker(t.discard[-1], t.settings):
        return True  # a black three, or a wild card, on top (docs/variants.md)
    if rules.pile_needs_side_melded and not t.melds[t.side_of(seat)]:
        return True
    if not t.stock and rules.stock_out == "tiles":
        return True
    # A single card in hand may not take a pile of one card (docs/rules.md#the-discard-pile).
    return len(t.hands[seat]) == 1 and len(t.discard) == 1


def unseen_bonus_threes(t: Table) -> int:
    """Red threes not yet shown: they are all in the stock (one in a hand is laid out at
    once), so this is how many of the stock's cards are red threes."""
    rules = t.rules
    in_deck = sum(1 for card in rules.deck() if rules.is_bonus_three(card))
    shown = sum(len(reds) for reds in t.red_threes)
    shown += sum(1 for card in t.discard if rules.is_bonus_three(card))
    return max(0, in_deck - shown)


def draw_may_end_hand(t: Table) -> bool:
    """True when a draw from the stock could end the hand, given only the stock's size: an
    empty stock, or fewer cards that are not red threes than a draw takes (a red three drawn
    as the stock's last card ends the hand, docs/rules.md#threes)."""
    others = len(t.stock) - unseen_bonus_threes(t)
    return not t.stock or others < t.rules.draws(t.players)
