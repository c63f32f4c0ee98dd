"""Who opens a share link without being a reader: mail-security scanners that follow every link
of a message, and chat/social apps that fetch a page to draw its preview. Their opens are
counted apart and never tell anyone the customer read the offer.

This is the one list; keep it short and plain. A name here is matched case-insensitively
anywhere in the User-Agent. Scanners that pretend to be a browser are caught by the other rules
(no script ran, or shorter than two seconds: proposals.share.engagement).
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

# Stored with the open and translated when shown; vendors' names stay as they are.
COMMAND_LINE = gettext_noop("command-line tool")
SCRIPT = gettext_noop("script")
CRAWLER = gettext_noop("crawler")
LINK_PREVIEW = gettext_noop("link preview")
NO_AGENT = gettext_noop("no browser named")
HEADLESS = gettext_noop("automated browser")

# (marker in the User-Agent, who it is), from each vendor's published agent string. Only markers
# no browser carries: Sogou's own browser is a browser (its spider is caught by "spider"),
# Facebook's, LinkedIn's and WeChat's in-app browsers are readers (FBAV, LinkedInApp,
# MicroMessenger), only their preview fetchers are listed.
SCANNER_AGENTS: tuple[tuple[str, str], ...] = (
    # Mail security: link rewriting and time-of-click checks
    ("Microsoft Office", "Microsoft Office"),  # "Microsoft Office/16.0 (…)"
    ("ms-office", "Microsoft Office"),
    ("MSOffice", "Microsoft Office"),
    ("Microsoft Outlook", "Microsoft Outlook"),
    ("SafeLinks", "Microsoft Safe Links"),
    ("BingPreview", "Bing"),
    ("SkypeUriPreview", "Skype / Teams"),
    ("Mimecast", "Mimecast"),
    ("Proofpoint", "Proofpoint"),
    ("urldefense", "Proofpoint"),
    ("Barracuda", "Barracuda"),
    ("Google-Safety", "Google Safe Browsing"),
    # Previews in chat and social apps
    ("Slackbot", "Slack"),
    ("Slack-ImgProxy", "Slack"),
    ("Twitterbot", "X / Twitter"),
    ("facebookexternalhit", "Facebook"),
    ("Facebot", "Facebook"),
    ("LinkedInBot", "LinkedIn"),
    ("WhatsApp", "WhatsApp"),
    ("TelegramBot", "Telegram"),
    ("Discordbot", "Discord"),
    ("Pinterestbot", "Pinterest"),
    ("redditbot", "Reddit"),
    ("Embedly", "Embedly"),
    ("Iframely", "Iframely"),
    ("vkShare", "VK"),
    # Search engines and crawlers (the page says noindex; some fetch it anyway)
    ("Googlebot", "Google"),
    ("AdsBot-Google", "Google"),
    ("Google-InspectionTool", "Google"),
    ("APIs-Google", "Google"),
    ("bingbot", "Bing"),
    ("Applebot", "Apple"),
    ("DuckDuckBot", "DuckDuckGo"),
    ("YandexBot", "Yandex"),
    ("Baiduspider", "Baidu"),
    ("360Spider", "360 Search"),
    ("Bytespider", "ByteDance"),
    ("YisouSpider", "Shenma"),
    # Browsers driven by a program, as link sandboxes run them (a person's Chrome never says
    # "Headless"); they run the page's script, so the reading-time rule alone would not catch them
    ("HeadlessChrome", HEADLESS),
    ("PhantomJS", HEADLESS),
    # Scripts and libraries: not a person with a browser
    ("curl/", COMMAND_LINE),
    ("Wget/", COMMAND_LINE),
    ("python-requests", SCRIPT),
    ("python-urllib", SCRIPT),
    ("python-httpx", SCRIPT),
    ("aiohttp", SCRIPT),
    ("Go-http-client", SCRIPT),
    ("okhttp", SCRIPT),
    ("Java/", SCRIPT),
    ("Apache-HttpClient", SCRIPT),
    ("libwww-perl", SCRIPT),
    ("node-fetch", SCRIPT),
    ("axios/", SCRIPT),
    # Generic words crawlers put in their names
    ("crawler", CRAWLER),
    ("spider", CRAWLER),
    ("preview", LINK_PREVIEW),
)

# Crawlers name a page about themselves: "(+http://…)" (a browser never does). Not a bare "bot":
# phones such as CUBOT carry it in their model name.
GENERIC_MARKERS: tuple[str, ...] = ("+http",)

_LOWERED = tuple((marker.lower(), name) for marker, name in SCANNER_AGENTS)


def scanner_named(user_agent: str) -> str:
    """Who the User-Agent says is fetching, when it is a scanner, a preview or a script; "" for
    a browser. No User-Agent at all is a script: every browser sends one."""
    agent = (user_agent or "").strip()[:512].lower()
    if not agent:
        return NO_AGENT
    for marker, name in _LOWERED:
        if marker in agent:
            return name
    if any(marker in agent for marker in GENERIC_MARKERS):
        return CRAWLER
    return ""


def is_scanner(user_agent: str) -> bool:
    return bool(scanner_named(user_agent))
