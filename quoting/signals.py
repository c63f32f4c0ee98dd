"""What quoting announces to the apps built on it (quoting imports none of them)."""

from django.dispatch import Signal

# A revision was frozen and sent (quote_send), inside the send's transaction; `revision` is the
# frozen revision, its content fingerprint stored. proposals retires the documents rendered
# before, when it was still a draft: none of them may pass for the sent offer.
revision_frozen = Signal()
