"""The inbox (a user's own notifications only) and the e-mail preferences."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from quoting.quotes.forms.notifications import NotificationEmailForm
from quoting.quotes.selectors import notification_email_kinds, notifications_for
from quoting.quotes.services.notifications import (
    notification_email_kinds_set,
    notification_mark_read,
    notifications_mark_all_read,
)

PAGE_SIZE = 50


@login_required
@require_GET
def inbox(request):
    page = Paginator(notifications_for(user=request.user), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "quoting/inbox.html", {"page": page})


@login_required
@require_POST
def inbox_read(request, pk: int):
    notification = get_object_or_404(notifications_for(user=request.user), pk=pk)
    notification_mark_read(user=request.user, notification=notification)
    return redirect("quoting:inbox")


@login_required
@require_POST
def inbox_read_all(request):
    notifications_mark_all_read(user=request.user)
    return redirect("quoting:inbox")


@login_required
@require_http_methods(["GET", "POST"])
def notification_settings(request):
    if request.method == "POST":
        form = NotificationEmailForm(request.POST)
        if form.is_valid():
            notification_email_kinds_set(user=request.user, kinds=form.cleaned_data["email_kinds"])
            messages.success(request, _("Your notification settings were saved."))
            return redirect("quoting:notification-settings")
        status = 400
    else:
        form = NotificationEmailForm(
            initial={"email_kinds": notification_email_kinds(user=request.user)}
        )
        status = 200
    return render(request, "quoting/notification_settings.html", {"form": form}, status=status)
