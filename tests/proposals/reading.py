"""A customer opening a share link and reading it, as the page's script reports it: the page
view, then a beacon with seconds per section (issue 15: only that makes an open real)."""

from __future__ import annotations

import datetime as dt
import json
import re

from django.test import Client

from proposals.models import LinkView

BROWSER = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)


def open_key_of(page: str) -> str:
    """The open id the page's script sends back, as the page carries it."""
    found = re.search(r'data-open="([^"]*)"', page)
    return found.group(1) if found else ""


def page_open(client: Client, token: str, *, agent: str = BROWSER, **extra):
    """(response, open id) of one view of the page."""
    response = client.get(f"/p/{token}", HTTP_USER_AGENT=agent, **extra)
    return response, open_key_of(response.content.decode())


def beacon_post(client: Client, token: str, body, **extra):
    data = body if isinstance(body, bytes | str) else json.dumps(body)
    return client.post(
        f"/p/{token}/beacon", data=data, content_type="text/plain;charset=UTF-8", **extra
    )


def page_read(
    client: Client, token: str, open_key: str, sections: dict, *, ago: float | None = None
):
    """Post a beacon for `open_key`; the view is first made `ago` seconds old (default: as old
    as the reading it reports), since no open can report more time than it has existed."""
    ago = sum(sections.values()) if ago is None else ago
    LinkView.objects.filter(open_key=open_key).update(
        at=LinkView.objects.get(open_key=open_key).at - dt.timedelta(seconds=ago)
    )
    return beacon_post(client, token, {"open": open_key, "sections": sections})


def open_and_read(
    token: str, sections: dict | None = None, *, client: Client | None = None, agent: str = BROWSER
):
    """A reader opens the link and reads it (3 s on the cover by default): a real open."""
    client = client or Client()
    response, open_key = page_open(client, token, agent=agent)
    assert response.status_code == 200, response.status_code
    answer = page_read(client, token, open_key, sections or {"cover": 3})
    assert answer.status_code == 204, answer.status_code
    return open_key


def link_read(link, revision, *, sections: dict | None = None, agent: str = BROWSER):
    """The same through the services: an open recorded, then confirmed by its beacon."""
    from proposals.share.engagement import Beacon
    from proposals.share.services import link_view_beacon, link_view_record

    sections = sections or {"cover": 3}
    open_key = link_view_record(link=link, user_agent=agent, revision=revision)
    LinkView.objects.filter(open_key=open_key).update(
        at=LinkView.objects.get(open_key=open_key).at - dt.timedelta(seconds=sum(sections.values()))
    )
    return link_view_beacon(link=link, beacon=Beacon(open_key=open_key, sections=sections))
