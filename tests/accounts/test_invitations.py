"""Invitations by email address: the mail, the link that takes a seat after signing up or in
(and confirms the address), withdrawal, expiry, and what the API shows."""

from datetime import timedelta
from urllib.parse import urlparse

from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games.models import Game, Invitation, Seat
from games.services import lobby
from games.services.moves import game_resign
from games.services.rematch import rematch_offer
from notifications.models import Outbox, OutboxKind
from notifications.services.preferences import email_skip_reason
from tests.accounts.conftest import link_in, mails_to
from tests.api.helpers import code_of
from tests.game_fixtures import PASSWORD, client_for

GAMES = "/api/v1/games/"
FRIEND = "friend@example.org"


def _table(alice, **extra):
    answer = client_for(alice).post(
        GAMES,
        {"variant": "classic", "players": 2, "invite_emails": [FRIEND], **extra},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    return Game.objects.get(pk=answer.json()["id"])


def _path(message):
    return urlparse(link_in(message, "/invitations/")).path


def test_an_invited_friend_signs_up_from_the_link_and_takes_the_seat(cast):
    game = _table(cast["alice"])
    seat = Seat.objects.get(game=game, user=None)
    assert seat.status == "invited"
    (message,) = mails_to(FRIEND)
    assert "alice invites you" in message.subject
    # The mail's link is made when it is sent: not stored in the row's payload.
    row = Outbox.objects.get(kind=OutboxKind.INVITATION)
    assert row.recipient is None and row.address == FRIEND
    assert Invitation.objects.get().token not in str(row.payload)
    path = _path(message)

    browser = Client()
    page = browser.get(path).content.decode()
    assert "Create an account" in page and "Take the seat" not in page
    signed_up = browser.post(
        "/signup/",
        {
            "username": "friend",
            "email": FRIEND,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": path,
        },
    )
    assert signed_up.status_code == 302 and signed_up["Location"] == path
    assert "Take the seat" in browser.get(path).content.decode()
    taken = browser.post(path, {"action": "accept"})
    assert taken.status_code == 302 and taken["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.status == "active"
    friend = get_user_model().objects.get(username="friend")
    assert Seat.objects.get(game=game, user=friend).status == "joined"
    # The click proved the address: turn mail may go there now.
    assert email_skip_reason(recipient=friend, kind=OutboxKind.YOUR_TURN) is None
    used = Client().get(path)
    assert used.status_code == 410 and "accepted already" in used.content.decode()


def test_a_withdrawn_invitation_explains_itself_and_frees_the_seat(cast):
    game = _table(cast["alice"])
    path = _path(mails_to(FRIEND)[0])
    listed = client_for(cast["alice"]).get(f"{GAMES}{game.pk}/invitations/").json()
    (entry,) = listed["invitations"]
    assert entry["email"] == FRIEND and entry["state"] == "pending"
    assert "token" not in entry
    # Only the inviter (or the table's creator) withdraws.
    stranger = client_for(cast["bob"]).delete(f"/api/v1/invitations/{entry['id']}/")
    assert code_of(stranger, 404) == "not_found"
    withdrawn = client_for(cast["alice"]).delete(f"/api/v1/invitations/{entry['id']}/")
    assert withdrawn.status_code == 200 and withdrawn.json()["state"] == "withdrawn"
    assert not Seat.objects.filter(game=game, user=None).exists()
    page = Client().get(path)
    assert page.status_code == 410 and "withdrawn" in page.content.decode()
    token = urlparse(path).path.rstrip("/").rsplit("/", 1)[-1]
    answer = client_for(cast["bob"]).post(
        "/api/v1/invitations/accept/", {"token": token}, format="json"
    )
    assert code_of(answer, 409) == "invitation_withdrawn"


def test_an_expired_invitation_explains_itself(cast):
    game = _table(cast["alice"])
    Invitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    path = _path(mails_to(FRIEND)[0])
    page = Client().get(path)
    assert page.status_code == 410 and "expired" in page.content.decode()
    token = path.rstrip("/").rsplit("/", 1)[-1]
    answer = client_for(cast["bob"]).post(
        "/api/v1/invitations/accept/", {"token": token}, format="json"
    )
    assert code_of(answer, 409) == "invitation_expired"
    # The seat it kept is free again.
    assert not Seat.objects.filter(game=game, user=None).exists()
    assert Client().get("/invitations/not-a-token/").status_code == 404


def test_inviting_to_an_open_table_through_the_api_and_accepting_signed_in(cast):
    alice, bob = cast["alice"], cast["bob"]
    created = (
        client_for(alice).post(GAMES, {"variant": "classic", "players": 4}, format="json").json()
    )
    url = f"{GAMES}{created['id']}/invitations/"
    assert code_of(client_for(alice).post(url, {"email": "nope"}, format="json"), 400)
    assert (
        client_for(alice).post(url, {"email": "bob@example.com"}, format="json").status_code == 201
    )
    assert client_for(alice).post(url, {"username": "carol"}, format="json").status_code == 201
    carol_mail = mails_to("carol@example.com")
    assert len(carol_mail) == 1 and "alice invites you" in carol_mail[0].subject
    token = _path(mails_to("bob@example.com")[0]).rstrip("/").rsplit("/", 1)[-1]
    joined = client_for(bob).post("/api/v1/invitations/accept/", {"token": token}, format="json")
    assert joined.status_code == 200
    assert "bob" in [s["username"] for s in joined.json()["seats"]]
    assert code_of(
        client_for(cast["eve"]).post(url, {"email": "x@example.com"}, format="json"), 403
    )


def test_the_page_form_invites_and_withdraws(cast):
    browser = Client()
    browser.force_login(cast["alice"])
    created = (
        client_for(cast["alice"])
        .post(GAMES, {"variant": "classic", "players": 2}, format="json")
        .json()
    )
    page = f"/games/{created['id']}/invitations/"
    sent = browser.post(page, {"who": FRIEND}, follow=True)
    assert "Invitation sent to friend@example.org" in sent.content.decode()
    invitation = Invitation.objects.get()
    browser.post(page, {"withdraw": str(invitation.pk)})
    invitation.refresh_from_db()
    assert invitation.status == "withdrawn"


def test_the_new_table_form_takes_addresses(cast):
    browser = Client()
    browser.force_login(cast["alice"])
    created = browser.post(
        "/games/new/",
        {
            "variant": "classic",
            "players": "2",
            "bots": "0",
            "bot_level": "basic",
            "invite": FRIEND,
            "turn_seconds": "",
            "timeout_policy": "autoplay",
            "public": "on",
        },
    )
    assert created.status_code == 302, created.content.decode()[:2000]
    assert Invitation.objects.get().email == FRIEND
    assert len(mails_to(FRIEND)) == 1


def test_declining_frees_the_seat_and_the_lobby_shows_the_kept_seat(cast):
    game = _table(cast["alice"], public=True)
    browser = Client()
    browser.force_login(cast["alice"])
    assert "invited by email" in browser.get("/").content.decode()
    path = _path(mails_to(FRIEND)[0])
    declined = Client().post(path, {"action": "decline"})
    assert declined.status_code == 200 and "The seat is free again" in declined.content.decode()
    assert not Seat.objects.filter(game=game, user=None).exists()
    assert Invitation.objects.get().status == "declined"
    again = Client().get(path)
    assert again.status_code == 410 and "declined" in again.content.decode()


def test_an_invitation_to_an_account_follows_its_email_mode(cast):
    from notifications.services.preferences import preference_update

    preference_update(user=cast["bob"], email_mode="none")
    assert email_skip_reason(recipient=cast["bob"], kind=OutboxKind.INVITATION) is not None
    preference_update(user=cast["bob"], email_mode="digest")
    assert email_skip_reason(recipient=cast["bob"], kind=OutboxKind.INVITATION) is None
    assert email_skip_reason(recipient=None, kind=OutboxKind.INVITATION, address=FRIEND) is None
    assert email_skip_reason(recipient=None, kind=OutboxKind.YOUR_TURN, address=FRIEND)


# --- invitation mails are capped per sender (issue 26, finding 7) -------------------------


def test_tables_called_off_again_and_again_mail_the_invited_player_three_times_a_day(cast):
    for _ in range(12):
        game = lobby.game_create(
            creator=cast["alice"],
            variant="classic",
            players=2,
            is_public=False,
            invite=["bob"],
        )
        lobby.game_abort(game_id=game.pk, user=cast["alice"])
    assert len(mails_to("bob@example.com")) == 3
    skipped = Outbox.objects.filter(recipient=cast["bob"], kind=OutboxKind.INVITATION)
    assert skipped.filter(status="skipped").count() == 9
    assert "used up" in skipped.filter(status="skipped").first().last_error
    # Another inviter is not held back by alice's count.
    lobby.game_create(creator=cast["carol"], variant="classic", players=2, invite=["bob"])
    assert len(mails_to("bob@example.com")) == 4


def test_rematch_offers_count_against_the_same_cap(cast):
    game = lobby.game_create(
        creator=cast["alice"], variant="classic", players=2, options={"seating": "invitation"}
    )
    game = lobby.game_join(game_id=game.pk, user=cast["bob"])
    for _ in range(5):
        game_resign(game_id=game.pk, user=cast["bob"])
        game = rematch_offer(game_id=game.pk, user=cast["alice"])
        game = lobby.game_join(game_id=game.pk, user=cast["bob"])
    invitations = Outbox.objects.filter(recipient=cast["bob"], kind=OutboxKind.INVITATION)
    assert invitations.count() == 5
    assert invitations.exclude(status="skipped").count() == 3


def test_one_sender_mails_at_most_twenty_people_a_day(cast, settings):
    people = [get_user_model().objects.create_user(f"p{i}", f"p{i}@example.com") for i in range(25)]
    for person in people:
        lobby.game_create(
            creator=cast["alice"], variant="classic", players=2, invite=[person.username]
        )
    sent = Outbox.objects.filter(kind=OutboxKind.INVITATION).exclude(status="skipped")
    assert sent.count() == settings.CANASTA_SENDER_MAILS_PER_DAY == 20
