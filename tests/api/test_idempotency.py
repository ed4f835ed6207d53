from datetime import timedelta

from django.utils import timezone

from games.fields import digest
from games.models import Game, IdempotencyRecord, Move
from games.services.idempotency import body_pack_format_1, record_body
from tests.api.helpers import code_of, url
from tests.game_fixtures import current_table

NAME_AT = {0: "alice", 1: "carol", 2: "bob", 3: "dave"}


def _draw(client, game, key, version=None):
    return client.post(
        url(game, "actions"),
        {"actions": [{"type": "draw"}], "expected_version": version or game.version},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key,
    )


def test_a_retry_gets_the_first_response_and_applies_nothing_twice(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]

    first = _draw(mover, game, "k-1")
    again = _draw(mover, game, "k-1")

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again["ETag"] == first["ETag"]
    assert again["Idempotent-Replayed"] == "true" and not first.has_header("Idempotent-Replayed")
    assert Move.objects.count() == 1


def test_a_record_stores_its_answer_packed_and_replays_it_byte_for_byte(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    first = _draw(mover, game, "k-p")
    record = IdempotencyRecord.objects.get(key="k-p")

    # The answer deflated against the API's dictionary: a small part of its JSON text, its
    # headers packed with it; the key and the request's fingerprint as 16-byte digests.
    assert record.response_body is None and record.response_headers is None
    assert len(bytes(record.response_packed)) * 4 < len(first.content)
    assert record.key == digest("k-p") and len(record.fingerprint) == 16
    again = _draw(mover, game, "k-p")
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_a_record_packed_with_its_headers_apart_is_replayed(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    first = _draw(mover, game, "k-f1")
    # As a record of the first packed format stored it: the body alone, the headers apart.
    IdempotencyRecord.objects.filter(key="k-f1").update(
        response_packed=body_pack_format_1(first.content.decode()),
        response_headers={"ETag": first["ETag"]},
    )

    again = _draw(mover, game, "k-f1")
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_a_record_written_before_packing_is_replayed(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    first = _draw(mover, game, "k-old")
    # As a record written before issue 25 stored it: the JSON text, nothing packed, the
    # headers in their column.
    IdempotencyRecord.objects.filter(key="k-old").update(
        response_body=first.content.decode(),
        response_packed=None,
        response_headers={"ETag": first["ETag"]},
    )

    again = _draw(mover, game, "k-old")
    assert again.content == first.content and again["Idempotent-Replayed"] == "true"


def test_the_answer_is_rendered_once_and_sent_as_it_was_stored(clients, game, monkeypatch):
    from rest_framework.renderers import JSONRenderer as DRFRenderer

    mover = clients[NAME_AT[current_table(game).turn]]
    renders = []
    original = DRFRenderer.render

    def counted(self, data, *args, **kwargs):
        if "actions" not in data:  # not the test client encoding a request's body
            renders.append(data)
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(DRFRenderer, "render", counted)
    first = _draw(mover, game, "k-once")
    indented = mover.post(
        url(game, "actions"),
        {"actions": [{"type": "meld", "cards": []}], "expected_version": 0},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k-indent",
        HTTP_ACCEPT="application/json; indent=2",
    )

    assert first.status_code == 200
    assert first.content.decode() == record_body(IdempotencyRecord.objects.get(key="k-once"))
    # Once for the stored answer, which is then sent; an indented answer is rendered again.
    assert len(renders) == 3
    assert indented.content.decode().startswith("{\n  ")


def test_an_error_is_replayed_too(clients, game):
    waiter = clients[NAME_AT[(current_table(game).turn + 1) % 4]]

    assert code_of(_draw(waiter, game, "k-2"), 422) == "not_your_turn"
    assert code_of(_draw(waiter, game, "k-2"), 422) == "not_your_turn"
    assert IdempotencyRecord.objects.get(key="k-2").response_status == 422


def test_the_same_key_with_another_body_is_refused(clients, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    _draw(mover, game, "k-3")

    response = _draw(mover, game, "k-3", version=game.version + 1)

    assert code_of(response, 422) == "idempotency_key_reused"
    assert Move.objects.count() == 1


def test_keys_belong_to_one_user(clients, users):
    for name in ("alice", "bob"):
        response = clients[name].post(
            "/api/v1/games/",
            {"variant": "classic", "players": 2},
            format="json",
            HTTP_IDEMPOTENCY_KEY="same",
        )
        assert response.status_code == 201
    assert Game.objects.count() == 2


def test_creating_a_table_twice_with_one_key_creates_one(clients, users):
    body = {"variant": "classic", "players": 2}
    first = clients["alice"].post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="t")
    again = clients["alice"].post("/api/v1/games/", body, format="json", HTTP_IDEMPOTENCY_KEY="t")

    assert again.json()["id"] == first.json()["id"] and again["Location"] == first["Location"]
    assert Game.objects.count() == 1


def test_a_request_still_in_flight_is_409_until_it_is_abandoned(clients, users, game):
    mover = clients[NAME_AT[current_table(game).turn]]
    _draw(mover, game, "k-4")
    record = IdempotencyRecord.objects.get(key="k-4")
    # As if the first request were still running: claimed, no response yet.
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        response_status=None, response_packed=None
    )

    assert code_of(_draw(mover, game, "k-4"), 409) == "request_in_progress"

    IdempotencyRecord.objects.filter(pk=record.pk).update(
        created_at=timezone.now() - timedelta(minutes=5)
    )
    # The abandoned claim is taken over and the request runs again (the game moved on: 409).
    assert code_of(_draw(mover, game, "k-4"), 409) == "stale_version"


def test_a_bad_key_is_400(clients, game):
    assert code_of(_draw(clients["alice"], game, "x" * 256), 400) == "invalid_request"


# --- Every POST as documented (issue 29) ---------------------------------------------------

# The POSTs that ignore Idempotency-Key, and why (docs/api.md#versions-etags-retries): a
# replay would store a secret shown once, there is no signed-in user to key it on, or the
# request ends the credentials it came with.
NOT_IDEMPOTENT = {
    "/api/v1/auth/register/",  # a new account token (secret)
    "/api/v1/auth/token/",  # a new account token (secret)
    "/api/v1/tokens/",  # a new personal token (secret)
    "/api/v1/webhooks/{webhook_id}/rotate-secret/",  # a new secret
    "/api/v1/auth/password/reset/",  # anonymous
    "/api/v1/auth/password/reset/confirm/",  # anonymous
    "/api/v1/me/email/confirm/",  # anonymous (the link's token)
    "/api/v1/invitations/decline/",  # anonymous (the link's token)
    "/api/v1/auth/password/",  # revokes every token
    "/api/v1/auth/token/revoke/",  # revokes every token
    "/api/v1/me/delete/",  # deletes the account
}


def test_every_other_post_takes_an_idempotency_key_and_documents_it(db):
    from tests.contract import served_schema

    for path, methods in served_schema()["paths"].items():
        if "post" not in methods or path in NOT_IDEMPOTENT:
            continue
        operation = methods["post"]
        names = [p["name"] for p in operation.get("parameters", [])]
        assert "Idempotency-Key" in names, path
        assert {"409", "422"} <= set(operation["responses"]), path
        for code, response in operation["responses"].items():
            if code.startswith("2"):
                assert "Idempotent-Replayed" in response["headers"], (path, code)


def test_two_chat_posts_with_one_key_make_one_line(clients, game):
    chat = f"/api/v1/games/{game.pk}/chat/"
    first = clients["carol"].post(
        chat, {"text": "hello"}, format="json", HTTP_IDEMPOTENCY_KEY="c-1"
    )
    again = clients["carol"].post(
        chat, {"text": "hello"}, format="json", HTTP_IDEMPOTENCY_KEY="c-1"
    )

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert [line["text"] for line in clients["alice"].get(chat).json()["results"]] == ["hello"]
    other = clients["carol"].post(chat, {"text": "bye"}, format="json", HTTP_IDEMPOTENCY_KEY="c-1")
    assert code_of(other, 422) == "idempotency_key_reused"


def test_a_repeated_invitation_with_its_key_is_the_first_answer(clients, users):
    created = clients["alice"].post("/api/v1/games/", {"variant": "classic", "players": 4}).json()
    invite = f"/api/v1/games/{created['id']}/invitations/"
    first = clients["alice"].post(invite, {"username": "carol"}, HTTP_IDEMPOTENCY_KEY="i-1")
    again = clients["alice"].post(invite, {"username": "carol"}, HTTP_IDEMPOTENCY_KEY="i-1")

    assert first.status_code == again.status_code == 201, again.content
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    # Without the key, the same invitation again is still refused as before.
    assert code_of(clients["alice"].post(invite, {"username": "carol"}), 409) == "already_invited"
