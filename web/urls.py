from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from web.forms import SignInForm
from web.views import (
    account,
    account_data,
    game,
    invitations,
    lobby,
    oauth,
    push,
    records,
    recovery,
    tokens,
    unsubscribe,
)

app_name = "web"

urlpatterns = [
    path("", lobby.home_view, name="lobby"),
    path("signup/", account.signup_view, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="web/login.html",
            redirect_authenticated_user=True,
            authentication_form=SignInForm,
        ),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(
            template_name="web/password_change.html",
            success_url=reverse_lazy("web:password_done"),
        ),
        name="password_change",
    ),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="web/password_done.html"),
        name="password_done",
    ),
    path("language/", account.language_view, name="set_language"),
    path("password/reset/", recovery.reset_request_view, name="password_reset"),
    path("password/reset/sent/", recovery.reset_sent_view, name="password_reset_sent"),
    path(
        "password/reset/<uidb64>/<token>/",
        recovery.ResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        recovery.ResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("account/confirm/<str:token>/", recovery.confirm_address_view, name="confirm_address"),
    path("account/export/", account_data.export_view, name="export"),
    path("account/delete/", account_data.delete_view, name="delete_account"),
    path("invitations/<str:token>/", invitations.invitation_view, name="invitation"),
    path(
        "games/<uuid:game_id>/invitations/", invitations.game_invitations_view, name="invitations"
    ),
    path("games/<uuid:game_id>/rematch/", invitations.rematch_view, name="rematch"),
    path("settings/", account.settings_view, name="settings"),
    path("settings/push/", push.push_subscribe_view, name="push_subscribe"),
    path("settings/push/off/", push.push_unsubscribe_view, name="push_unsubscribe"),
    path("sw.js", push.service_worker_view, name="service_worker"),
    path("manifest.webmanifest", push.manifest_view, name="manifest"),
    path("unsubscribe/<str:token>/", unsubscribe.unsubscribe_view, name="unsubscribe"),
    path("account/tokens/", tokens.tokens_view, name="tokens"),
    path("account/apps/", oauth.apps_view, name="apps"),
    path("games/new/", lobby.create_view, name="create"),
    path("games/<uuid:game_id>/", game.game_view, name="game"),
    path("games/<uuid:game_id>/table/", game.table_fragment, name="table"),
    path("games/<uuid:game_id>/move/", game.move_view, name="move"),
    path("games/<uuid:game_id>/scores/", game.scores_view, name="scores"),
    path(
        "games/<uuid:game_id>/scores/<int:number>/seen/",
        game.sheet_seen_view,
        name="sheet_seen",
    ),
    path("games/<uuid:game_id>/join/", lobby.join_view, name="join"),
    path("games/<uuid:game_id>/leave/", game.leave_view, name="leave"),
    path("games/<uuid:game_id>/abort/", game.abort_view, name="abort"),
    path("games/<uuid:game_id>/resign/", game.resign_view, name="resign"),
    path("games/<uuid:game_id>/chat/", game.chat_view, name="chat"),
    path("games/<uuid:game_id>/chat/mute/", game.chat_mute_view, name="chat_mute"),
    path(
        "games/<uuid:game_id>/chat/<int:message_id>/report/",
        game.chat_report_view,
        name="chat_report",
    ),
    path("games/<uuid:game_id>/replay/", records.replay_view, name="replay"),
    path("games/<uuid:game_id>/record.json", records.record_download, name="record"),
    path("archive/", records.archive_view, name="archive"),
    path("players/<str:username>/", records.profile_view, name="profile"),
    path("leaderboard/", records.leaderboard_view, name="leaderboard"),
]
