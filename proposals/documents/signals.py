"""What the documents announce to the rest of proposals (share pages, signed copies), which
the documents module does not import: proposals/apps.py connects the receivers."""

from django.dispatch import Signal

# A sent revision's PDF is ready (`document`, a ProposalDocument; not sent for draft previews),
# inside the transaction that marked it ready. The share page stops asking whether it is ready;
# signed copies waiting for it are made.
document_ready = Signal()
