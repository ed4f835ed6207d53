from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from web.views import account, game, lobby, records, tokens

app_name = "web"

urlpatterns = [
    path("", lobby.home_view, name="lobby"),
    path("signup/", account.signup_view, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(
            template_name="web/login.html", redirect_authenticated_user=True
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
    path("settings/", account.settings_view, name="settings"),
    path("account/tokens/", tokens.tokens_view, name="tokens"),
    path("games/new/", lobby.create_view, name="create"),
    path("games/<uuid:game_id>/", game.game_view, name="game"),
    path("games/<uuid:game_id>/table/", game.table_fragment, name="table"),
    path("games/<uuid:game_id>/move/", game.move_view, name="move"),
    path("games/<uuid:game_id>/join/", lobby.join_view, name="join"),
    path("games/<uuid:game_id>/leave/", game.leave_view, name="leave"),
    path("games/<uuid:game_id>/abort/", game.abort_view, name="abort"),
    path("games/<uuid:game_id>/resign/", game.resign_view, name="resign"),
    path("games/<uuid:game_id>/replay/", records.replay_view, name="replay"),
    path("games/<uuid:game_id>/record.json", records.record_download, name="record"),
    path("archive/", records.archive_view, name="archive"),
    path("players/<str:username>/", records.profile_view, name="profile"),
    path("leaderboard/", records.leaderboard_view, name="leaderboard"),
]
