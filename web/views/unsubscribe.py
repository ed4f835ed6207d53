"""One-click unsubscribe (RFC 8058) from the link in every email's List-Unsubscribe header.

The link is signed for one user (notifications.headers.unsubscribe_url) and works without
signing in. A GET only shows a page with a confirm button (mail scanners and link previews
fetch links: nothing changes on a GET); a POST, from that button or from the mail client's
own one-click ("List-Unsubscribe=One-Click"), turns email off (email_mode none). The mail
client posts without our CSRF token, so the view is exempt; the signature is the credential.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from notifications.headers import unsubscribe_user_id
from notifications.models import EmailMode
from notifications.services.preferences import preference_of, preference_update


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    user_id = unsubscribe_user_id(token)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id is not None else None
    if user is None:
        return render(request, "web/unsubscribe.html", {"invalid": True}, status=404)
    done = False
    if request.method == "POST":
        preference_update(user=user, email_mode=EmailMode.NONE)
        done = True
    context = {
        "done": done,
        "off": preference_of(user=user).email_mode == EmailMode.NONE,
        "token": token,
    }
    return render(request, "web/unsubscribe.html", context)
