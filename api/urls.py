from django.urls import include, path

from api.views.accounts import (
    AccountDeleteView,
    EmailConfirmView,
    EmailResendView,
    ExportView,
    GameInvitationsView,
    InvitationAcceptView,
    InvitationDeclineView,
    InvitationView,
    MeView,
    PasswordResetConfirmView,
    PasswordResetView,
    RematchView,
)
from api.views.auth import AccountTokensRevokeView, PasswordView, RegisterView, TokenView
from api.views.chat import ChatMuteView, ChatReportView, ChatView
from api.views.health import HealthView
from api.views.lobby import AbortView, GamesView, JoinView, LeaveView, OpenGamesView
from api.views.log import HandsView, MovesView
from api.views.me import AbsencesView, AbsenceView, PreferencesView
from api.views.play import ActionsView, GameDetailView, LegalView, ReclaimView, ResignView
from api.views.records import ArchiveView, LeaderboardView, PlayerView, RecordView
from api.views.variants import VariantsView

app_name = "api"

urlpatterns = [
    path("health/", HealthView.as_view(), name="health"),
    path("auth/register/", RegisterView.as_view(), name="register"),
    path("auth/token/", TokenView.as_view(), name="token"),
    path("auth/token/revoke/", AccountTokensRevokeView.as_view(), name="token-revoke"),
    path("auth/password/", PasswordView.as_view(), name="password"),
    path("auth/password/reset/", PasswordResetView.as_view(), name="password-reset"),
    path(
        "auth/password/reset/confirm/",
        PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path("variants/", VariantsView.as_view(), name="variants"),
    path("games/", GamesView.as_view(), name="games"),
    path("games/open/", OpenGamesView.as_view(), name="games-open"),
    path("games/archive/", ArchiveView.as_view(), name="games-archive"),
    path("games/<uuid:game_id>/", GameDetailView.as_view(), name="game"),
    path("games/<uuid:game_id>/join/", JoinView.as_view(), name="game-join"),
    path("games/<uuid:game_id>/leave/", LeaveView.as_view(), name="game-leave"),
    path("games/<uuid:game_id>/abort/", AbortView.as_view(), name="game-abort"),
    path("games/<uuid:game_id>/resign/", ResignView.as_view(), name="game-resign"),
    path("games/<uuid:game_id>/legal/", LegalView.as_view(), name="game-legal"),
    path("games/<uuid:game_id>/actions/", ActionsView.as_view(), name="game-actions"),
    path("games/<uuid:game_id>/moves/", MovesView.as_view(), name="game-moves"),
    path("games/<uuid:game_id>/hands/", HandsView.as_view(), name="game-hands"),
    path("games/<uuid:game_id>/reclaim/", ReclaimView.as_view(), name="game-reclaim"),
    path(
        "games/<uuid:game_id>/invitations/", GameInvitationsView.as_view(), name="game-invitations"
    ),
    path("games/<uuid:game_id>/chat/", ChatView.as_view(), name="game-chat"),
    path("games/<uuid:game_id>/chat/mute/", ChatMuteView.as_view(), name="game-chat-mute"),
    path(
        "games/<uuid:game_id>/chat/<int:message_id>/report/",
        ChatReportView.as_view(),
        name="game-chat-report",
    ),
    path("games/<uuid:game_id>/rematch/", RematchView.as_view(), name="game-rematch"),
    path("invitations/accept/", InvitationAcceptView.as_view(), name="invitation-accept"),
    path("invitations/decline/", InvitationDeclineView.as_view(), name="invitation-decline"),
    path("invitations/<int:invitation_id>/", InvitationView.as_view(), name="invitation"),
    path("me/", MeView.as_view(), name="me"),
    path("me/email/confirm/", EmailConfirmView.as_view(), name="me-email-confirm"),
    path("me/email/resend/", EmailResendView.as_view(), name="me-email-resend"),
    path("me/export/", ExportView.as_view(), name="me-export"),
    path("me/delete/", AccountDeleteView.as_view(), name="me-delete"),
    path("games/<uuid:game_id>/record/", RecordView.as_view(), name="game-record"),
    path("players/<str:username>/", PlayerView.as_view(), name="player"),
    path("leaderboard/<str:family>/", LeaderboardView.as_view(), name="leaderboard"),
    path("me/preferences/", PreferencesView.as_view(), name="me-preferences"),
    path("me/absences/", AbsencesView.as_view(), name="me-absences"),
    path("me/absences/<int:absence_id>/", AbsenceView.as_view(), name="me-absence"),
    # Event feed, webhooks and personal tokens (clients/).
    path("", include("api.clients.urls")),
]
