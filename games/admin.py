"""Operators' view of games. Hidden cards stay hidden here too: the admin shows the log as a
spectator sees it and never the seed of a hand in progress or the snapshot's hands."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games import engine
from games.fields import compact_json
from games.models import (
    ChatMessage,
    ChatMute,
    ChatReport,
    Game,
    Hand,
    Invitation,
    Move,
    MoveArchive,
    MoveChunk,
    Seat,
)
from games.movearchive import moves_unpacked
from games.movelog import game_moves


class ReadOnlyMixin:
    """No add, change or delete, for model admins and inlines alike."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ViewOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """An operator's page that changes nothing: no add, edit or delete (what a player receives
    must not depend on an operator). The other apps' admins build on it."""


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    fields = ("number", "user", "kind", "status", "joined_at", "drew")
    readonly_fields = fields
    extra = 0


class HandInline(ReadOnlyMixin, admin.TabularInline):
    model = Hand
    fields = ("number", "dealer", "commitment", "revealed_seed", "end_reason", "finished_at")
    readonly_fields = fields
    extra = 0

    @admin.display(description="seed")
    def revealed_seed(self, hand: Hand) -> str:
        return hand.seed if hand.is_over else "(secret until the hand is over)"


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "variant", "players", "status", "is_public", "version", "created_at")
    list_filter = ("status", "variant", "is_public")
    search_fields = ("id", "seats__user__username")
    date_hierarchy = "created_at"
    # Status, version and the log change only through the services (a move is validated and
    # logged); the time control was agreed by the players when they sat down. Operators may
    # only take a table off the public list.
    readonly_fields = (
        "id",
        "variant",
        "players",
        "options",
        "status",
        "version",
        "last_seq",
        "turn_seat",
        "deadline",
        "seating_seed",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "end_reason",
        "winner_side",
        "turn_seconds",
        "timeout_policy",
    )
    fields = (*readonly_fields[:4], "is_public", *readonly_fields[4:])
    inlines = [SeatInline, HandInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # tables are created through the API, which checks them with the engine


@admin.register(Move)
class MoveAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("game", "seq", "hand", "seat", "actor", "action_type", "created_at")
    list_filter = ("actor",)
    search_fields = ("game__id",)
    fields = ("game", "seq", "hand", "seat", "actor", "action", "public_events", "created_at")
    readonly_fields = fields
    list_select_related = ("game",)

    @admin.display(description="type")
    def action_type(self, move: Move) -> str:
        return str(move.action.get("type", ""))

    @admin.display(description="events (as a spectator sees them)")
    def public_events(self, move: Move) -> list[dict[str, Any]]:
        return _spectator_events(move)


def _spectator_events(move: Move) -> list[dict[str, Any]]:
    return [engine.event_for(event, None) for event in move.events]


def _moves_table(moves: list[Move]) -> SafeString:
    """Packed moves as the Moves page shows rows: events as a spectator sees them."""
    rows = (
        (move.seq, move.hand, move.seat, move.actor, compact_json(move.action),
         compact_json(_spectator_events(move)), move.created_at.isoformat())
        for move in moves
    )  # fmt: skip
    header = "<tr><th>seq</th><th>hand</th><th>seat</th><th>actor</th><th>action</th>"
    header += "<th>events</th><th>created</th></tr>"
    cells = "<tr>" + "<td>{}</td>" * 7 + "</tr>"
    return format_html(
        "<table>{}{}</table>", SafeString(header), format_html_join("\n", cells, rows)
    )


@admin.register(MoveArchive)
class MoveArchiveAdmin(ViewOnlyAdmin):
    """A finished game's log once it is packed (games.services.archive): its Move rows are
    gone from the Move page, so this page shows the moves as that page did."""

    list_display = ("game", "moves")
    search_fields = ("game__id",)
    fields = ("game", "moves", "log")
    readonly_fields = fields
    list_select_related = ("game",)

    @admin.display(description="the moves (events as a spectator sees them)")
    def log(self, archive: MoveArchive) -> SafeString:
        return _moves_table(game_moves(archive.game))


@admin.register(MoveChunk)
class MoveChunkAdmin(ViewOnlyAdmin):
    """Moves of a game still played, packed a day after they were logged
    (games.services.coldmoves): gone from the Move page, shown here as that page did."""

    list_display = ("game", "first_seq", "last_seq", "first_hand", "last_hand")
    search_fields = ("game__id",)
    fields = ("game", "first_seq", "last_seq", "log")
    readonly_fields = fields
    list_select_related = ("game",)

    @admin.display(description="the moves (events as a spectator sees them)")
    def log(self, chunk: MoveChunk) -> SafeString:
        return _moves_table(moves_unpacked(chunk.game_id, chunk.packed))


@admin.register(Invitation)
class InvitationAdmin(ViewOnlyAdmin):
    """Invitations by email, view only. The token is the link's secret: never shown."""

    list_display = ["id", "game", "inviter", "email", "status", "created_at", "expires_at"]
    list_filter = ["status"]
    search_fields = ["email", "inviter__username"]
    exclude = ["token"]
    readonly_fields = ["game", "seat", "inviter", "email", "accepted_by", "created_at"]


class ChatReportInline(ReadOnlyMixin, admin.TabularInline):
    model = ChatReport
    fields = ("reporter", "reason", "created_at")
    readonly_fields = fields
    extra = 0


@admin.register(ChatMessage)
class ChatMessageAdmin(ViewOnlyAdmin):
    """Table talk, for following up reports: the players' own words (never cards the service
    knows to be hidden: it writes no line itself)."""

    list_display = ("id", "game", "user", "seat", "source", "created_at", "short_text")
    list_filter = ("source",)
    search_fields = ("game__id", "user__username", "text")
    date_hierarchy = "created_at"
    inlines = [ChatReportInline]

    @admin.display(description="text")
    def short_text(self, message: ChatMessage) -> str:
        return message.text[:80]


@admin.register(ChatReport)
class ChatReportAdmin(ViewOnlyAdmin):
    """Reported lines, newest first: what was said, by whom, at which table."""

    list_display = ("id", "created_at", "reporter", "reported_user", "reported_text", "game")
    search_fields = ("message__text", "reporter__username", "message__user__username")
    date_hierarchy = "created_at"
    list_select_related = ("message", "message__user", "reporter")

    @admin.display(description="reported player")
    def reported_user(self, report: ChatReport) -> str:
        return report.message.user.get_username()

    @admin.display(description="text")
    def reported_text(self, report: ChatReport) -> str:
        return report.message.text[:120]

    @admin.display(description="game")
    def game(self, report: ChatReport) -> str:
        return str(report.message.game_id)


@admin.register(ChatMute)
class ChatMuteAdmin(ViewOnlyAdmin):
    list_display = ("user", "muted", "created_at")
