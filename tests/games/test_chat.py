"""Table talk, the domain service (docs/table-talk.md): who reads and writes, the limits,
clean text, mute and report; and the email command language: a say line is never a move and
a move never a say."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.mail.commands import parse_commands
from games.models import ChatMessage, ChatReport
from games.services import chat
from games.services.errors import ErrorKind, GameError
from tests.game_fixtures import play_random, start_game


def _post(game, user, text):
    return chat.chat_post(game_id=game.pk, user=user, text=text)


def test_every_player_at_the_table_reads_what_one_says(game, users):
    line = _post(game, users["carol"], "Good luck, everyone!")

    for name in ("alice", "bob", "dave"):
        [seen] = chat.chat_lines(game_id=game.pk, user=users[name])
        assert (seen.id, seen.name, seen.text, seen.mine) == (line.id, "carol", line.text, False)
    assert chat.chat_lines(game_id=game.pk, user=users["carol"])[0].mine


def test_spectators_and_strangers_neither_read_nor_write(game, private_game, users):
    with pytest.raises(GameError) as spectator:
        chat.chat_lines(game_id=game.pk, user=users["eve"])
    assert spectator.value.code == "not_seated"
    with pytest.raises(GameError) as writer:
        _post(game, users["eve"], "hello")
    assert writer.value.code == "not_seated"
    with pytest.raises(GameError) as private:
        chat.chat_lines(game_id=private_game.pk, user=users["eve"])
    assert private.value.code == "not_found"  # a private table stays invisible
    assert not ChatMessage.objects.exists()


def test_line_breaks_nul_and_control_characters_are_cleaned(game, users):
    line = _post(game, users["alice"], "  one\r\ntwo\nthree \x00\u202efour\t five  ")
    assert line.text == "one two three four five"
    assert ChatMessage.objects.get().text == "one two three four five"


@pytest.mark.parametrize("text", ["", "   ", "\r\n\x00", None, 42])
def test_an_empty_message_is_refused(game, users, text):
    with pytest.raises(GameError) as refused:
        _post(game, users["alice"], text)
    assert (refused.value.kind, refused.value.code) == (ErrorKind.INVALID, "chat_empty")


def test_a_message_longer_than_the_limit_is_refused_whole(game, users):
    assert _post(game, users["alice"], "x" * chat.MAX_LENGTH).text == "x" * chat.MAX_LENGTH
    with pytest.raises(GameError) as refused:
        _post(game, users["alice"], "x" * (chat.MAX_LENGTH + 1))
    assert refused.value.code == "chat_too_long"
    assert refused.value.details == {"limit": 500, "length": 501}
    assert ChatMessage.objects.count() == 1


def test_at_most_ten_lines_a_minute_per_player_and_table(game, users):
    for number in range(chat.RATE_LIMIT):
        _post(game, users["alice"], f"line {number}")
    with pytest.raises(GameError) as refused:
        _post(game, users["alice"], "one too many")
    assert (refused.value.kind, refused.value.code) == (ErrorKind.CONFLICT, "chat_rate_limited")
    # Another player is not held back by alice ...
    _post(game, users["bob"], "my turn to talk")
    # ... and a minute later alice may talk again.
    ChatMessage.objects.filter(user=users["alice"]).update(
        created_at=timezone.now() - timedelta(seconds=61)
    )
    _post(game, users["alice"], "back again")


def test_a_muted_player_is_hidden_for_the_muter_only_at_every_table(game, users):
    other_table = start_game(users)
    _post(game, users["carol"], "blah blah")
    _post(other_table, users["carol"], "more blah")
    _post(game, users["dave"], "sensible")

    assert chat.chat_mute(game_id=game.pk, user=users["alice"], seat=1) is True

    assert [x.text for x in chat.chat_lines(game_id=game.pk, user=users["alice"])] == ["sensible"]
    assert chat.chat_lines(game_id=other_table.pk, user=users["alice"]) == []
    assert len(chat.chat_lines(game_id=game.pk, user=users["bob"])) == 2
    assert chat.chat_muted_seats(game=game, user=users["alice"]) == {1}

    chat.chat_mute(game_id=game.pk, user=users["alice"], seat=1, muted=False)
    assert len(chat.chat_lines(game_id=game.pk, user=users["alice"])) == 2


@pytest.mark.parametrize(("seat", "code"), [(0, "chat_mute_self"), (7, "chat_no_such_player")])
def test_muting_oneself_or_an_empty_seat_is_refused(game, users, seat, code):
    with pytest.raises(GameError) as refused:
        chat.chat_mute(game_id=game.pk, user=users["alice"], seat=seat)
    assert refused.value.code == code


def test_a_report_is_stored_once_for_the_operators(game, users):
    line = _post(game, users["carol"], "rude words")
    for _ in range(2):
        chat.chat_report(game_id=game.pk, user=users["alice"], message_id=line.id, reason="rude")
    [report] = ChatReport.objects.all()
    assert (report.reporter, report.message_id, report.reason) == (users["alice"], line.id, "rude")

    with pytest.raises(GameError) as own:
        chat.chat_report(game_id=game.pk, user=users["carol"], message_id=line.id)
    assert own.value.code == "chat_report_self"
    other_table = start_game(users)
    with pytest.raises(GameError) as elsewhere:
        chat.chat_report(game_id=other_table.pk, user=users["alice"], message_id=line.id)
    assert elsewhere.value.code == "not_found"


def test_the_service_itself_never_writes_a_line(game, users):
    play_random(game, 12)
    assert not ChatMessage.objects.exists()


# --- the email command language --------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "text", "said"),
    [
        ("en", "say good luck; draw and discard 9c", "good luck; draw and discard 9c"),
        ("en", "Say: well played!", "well played!"),
        ("en", "- chat nice meld", "nice meld"),
        ("de", "sagen: Viel Glück und gut Blatt", "Viel Glück und gut Blatt"),
        ("de", "Sage danke", "danke"),
        ("is", "segja takk fyrir leikinn", "takk fyrir leikinn"),
        ("is", "Segi: gangi ykkur vel", "gangi ykkur vel"),
        ("de", "say hello", "hello"),  # English words always work
    ],
)
def test_a_say_line_is_said_and_never_read_as_a_move(lang, text, said):
    parsed = parse_commands(text, None, lang=lang)
    assert parsed.says == [said]
    assert parsed.actions == [] and parsed.services == []


@pytest.mark.parametrize(
    ("lang", "text"),
    [("en", "draw"), ("de", "ziehen"), ("is", "draga"), ("en", "status"), ("de", "hilfe")],
)
def test_a_move_is_never_read_as_a_say(lang, text):
    parsed = parse_commands(text, None, lang=lang)
    assert parsed.says == [] and len(parsed) == 1


def test_moves_and_say_lines_mix_line_by_line():
    parsed = parse_commands("draw\nsay hi all\ndiscard 9c", {"hand": ["9C"]}, lang="en")
    assert [c.kind for c in parsed] == ["draw", "say", "discard"]


def test_say_words_are_no_other_command_in_any_language():
    from games.mail.vocabulary import VOCABULARIES, fold

    commands = set()
    for vocabulary in VOCABULARIES.values():
        commands |= {fold(w) for w in vocabulary.verbs}
        commands |= {fold(p.split()[0]) for p in vocabulary.phrases}
    for vocabulary in VOCABULARIES.values():
        assert not {fold(w) for w in vocabulary.say_words} & commands


def test_a_say_without_words_is_refused_clearly():
    from games.mail.commands import CommandError

    with pytest.raises(CommandError) as refused:
        parse_commands("sagen", None, lang="de")
    assert "sagen" in refused.value.message


def test_staff_see_reports_in_the_admin_view_only(game, users, client):
    line = _post(game, users["carol"], "rude words")
    chat.chat_report(game_id=game.pk, user=users["alice"], message_id=line.id, reason="rude")
    staff = users["eve"]
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)

    listing = client.get("/admin/games/chatreport/")
    assert listing.status_code == 200
    assert "rude words" in listing.content.decode() and "carol" in listing.content.decode()
    report = ChatReport.objects.get()
    page = client.get(f"/admin/games/chatreport/{report.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get("/admin/games/chatmessage/").status_code == 200
    assert client.get("/admin/games/chatreport/add/").status_code == 403


def test_the_turn_email_gets_the_lines_since_the_last_move_without_muted_ones(game, users):
    from notifications.payloads import turn_chat
    from tests.game_fixtures import current_table

    seat_number = current_table(game).turn
    me = next(s for s in game.seats.all() if s.number == seat_number)
    others = [s.user for s in game.seats.all() if s.number != seat_number]
    _post(game, others[0], "before my move")
    game = play_random(game, 1)  # my draw: my last move is now
    _post(game, others[0], "after my move")
    _post(game, others[1], "muted words")
    _post(game, me.user, "my own words")
    chat.chat_mute(
        game_id=game.pk,
        user=me.user,
        seat=next(s.number for s in game.seats.all() if s.user_id == others[1].pk),
    )

    lines = turn_chat(game=game, seat=me)

    assert lines == [{"name": others[0].username, "text": "after my move"}]
