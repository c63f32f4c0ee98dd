"""The signed copy: the accepted PDF's pages copied as they are, then the certificate's pages,
and the accepted PDF itself attached byte for byte (`accepted-original.pdf`). And its check,
which needs pypdf and pyHanko alone (no WeasyPrint, no database).

The check compares what is rendered, not only each page's content stream (issue 23): each of
the original's pages against the copy's, with everything reachable from it (content, resources:
fonts, images, Form XObjects and what they reach, annotations, every box, the rotation, the
page's actions, inherited attributes included); the document may run nothing (/OpenAction, /AA,
document scripts) and its catalog may hold nothing the original's does not, besides the
attachment; the attachment must be the original; the original's SHA-256 must be the one the
portal published. What only the portal can vouch for, the certificate's own claims (who signed,
when, what they chose), is bound by the copy's SHA-256 as the portal recorded it.

The signature block (#27): the copy's page holding the proposal's blank signature block carries
the block filled in (the customer's signature, name, title, date; the seller's countersignature
and company chop once given), drawn by one Form XObject (STAMP_NAME) clipped to the block, the
page's own content streams kept as they are between STAMP_HEAD and STAMP_TAIL. The check allows
exactly that on one page, and compares all the rest of the page as before; what the stamp says is,
like the certificate, the portal's claim, bound by the copy's recorded SHA-256 and the seller's
signature.

The copy is then signed by the seller (PAdES, proposals/documents/signing.py): an incremental
update after the assembled copy adds a signature field (invisible, on the certificate's last
page), the form and extension entries of the catalog and, for B-LT, the validation data (/DSS).
The check allows exactly those, and reads the signature with pyHanko: intact, covering the
whole file (or followed only by validation data), and whose certificate signed it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import re

from pypdf import PdfReader, PdfWriter
from pypdf.errors import PyPdfError
from pypdf.generic import (
    ArrayObject,
    DecodedStreamObject,
    DictionaryObject,
    FloatObject,
    IndirectObject,
    NameObject,
    StreamObject,
)

from proposals.documents.signing import outside_event_loop

# Written into the signed copy's document information too, for programs that read no text.
ORIGINAL_SHA256_KEY = "/FabricQuoteOriginalSHA256"
# The accepted PDF, attached to its signed copy byte for byte.
ACCEPTED_ORIGINAL_NAME = "accepted-original.pdf"
# Page attributes a page without its own takes from the page tree above it.
INHERITABLE = ("/Resources", "/MediaBox", "/CropBox", "/Rotate")
# Objects compared at most per check: a copy built to make the check slow is refused instead.
MAX_COMPARED = 500_000
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
# What the seller's signature adds to the catalog: the form holding its field, the developer
# extension PAdES declares, the validation data of B-LT, the version it may raise.
SIGNATURE_CATALOG_KEYS = ("/AcroForm", "/Extensions", "/DSS", "/Version")


# The filled signature block: a Form XObject of this name, drawn after the page's own content.
STAMP_NAME = "/FabricQuoteSignatures"
STAMP_HEAD = b"q\n"  # the page's content runs inside q ... Q: the stamp starts from a clean state
STAMP_TAIL = b"Q\nq " + STAMP_NAME.encode() + b" Do Q\n"


def signed_copy_assemble(*, original: bytes, certificate: bytes, stamp=None) -> bytes:
    """The original's document cloned as it is (pages, resources, outline: not one object
    rewritten), the certificate's pages after its own, and the original attached. `stamp`
    (proposals.documents.pdf.SignatureStamp): the filled signature block, drawn over its page
    (the page's content and the resources it had are kept; see the module's docstring)."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(original)))
    if stamp is not None:
        _stamp(writer, stamp)
    for page in PdfReader(io.BytesIO(certificate)).pages:
        writer.add_page(page)
    writer.add_attachment(ACCEPTED_ORIGINAL_NAME, original)
    writer.add_metadata({ORIGINAL_SHA256_KEY: hashlib.sha256(original).hexdigest()})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _stamp(writer: PdfWriter, stamp) -> None:
    filled = PdfReader(io.BytesIO(stamp.pdf)).pages[stamp.pdf_page]
    drawing = filled.get_contents().get_data()
    if any(stamp.offset):
        # The block rendered on a page of its own: moved to the block's corner by the drawing
        # itself, not by a /Matrix (the check refuses a stamp placed by one), so its /BBox
        # stays in the page's own space.
        drawing = b"1 0 0 1 %.2f %.2f cm\n" % tuple(stamp.offset) + drawing
    form = DecodedStreamObject()
    form.set_data(drawing)
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): ArrayObject(FloatObject(v) for v in stamp.bbox),
            NameObject("/Resources"): _resolved(filled["/Resources"]).clone(writer),
        }
    )
    form_ref = writer._add_object(form.flate_encode())
    page = writer.pages[stamp.page]
    entries = _page_entries(page)
    contents = _resolved(entries["/Contents"])
    own = list(contents) if isinstance(contents, ArrayObject) else [entries["/Contents"]]
    head, tail = DecodedStreamObject(), DecodedStreamObject()
    head.set_data(STAMP_HEAD)
    tail.set_data(STAMP_TAIL)
    page[NameObject("/Contents")] = ArrayObject(
        [writer._add_object(head), *own, writer._add_object(tail)]
    )
    # A resources dictionary of the page's own (WeasyPrint's may be shared between pages),
    # holding the same entries plus the stamp.
    resources = _resolved(entries.get("/Resources")) or DictionaryObject()
    mine = DictionaryObject({key: resources.raw_get(key) for key in resources})
    xobjects = _resolved(resources.get("/XObject")) or DictionaryObject()
    mine[NameObject("/XObject")] = DictionaryObject(
        {**{key: xobjects.raw_get(key) for key in xobjects}, NameObject(STAMP_NAME): form_ref}
    )
    page[NameObject("/Resources")] = mine


def _unstamped(mine: dict, theirs: dict) -> tuple[dict, str] | None:
    """The copy's page entries `theirs` as they were before the signature block was stamped,
    and the problem with its stamp ("" if none); None when the page carries no stamp."""
    contents = _resolved(theirs.get("/Contents"))
    if not isinstance(contents, ArrayObject) or len(contents) < 3:
        return None
    first, last = _resolved(contents[0]), _resolved(contents[-1])
    if not (
        isinstance(first, StreamObject)
        and isinstance(last, StreamObject)
        and first.get_data() == STAMP_HEAD
        and last.get_data() == STAMP_TAIL
    ):
        return None
    resources = _resolved(theirs.get("/Resources"))
    xobjects = _resolved(resources.get("/XObject")) if isinstance(resources, dict) else None
    form = _resolved(xobjects.get(STAMP_NAME)) if isinstance(xobjects, dict) else None
    problem = _stamp_problem(form, _resolved(theirs.get("/MediaBox")))
    own = ArrayObject(contents[1:-1])
    was_array = isinstance(_resolved(mine.get("/Contents")), ArrayObject)
    restored = {**theirs, "/Contents": own if was_array or len(own) != 1 else own[0]}
    if isinstance(xobjects, dict):
        kept = DictionaryObject(
            {key: xobjects.raw_get(key) for key in xobjects if key != STAMP_NAME}
        )
        before = DictionaryObject({key: resources.raw_get(key) for key in resources})
        # The stamp's name added to the page's own XObjects, or an /XObject of its own (none on
        # the original page, or an empty one).
        own = _resolved(mine.get("/Resources"))
        if kept or (isinstance(own, dict) and "/XObject" in own):
            before[NameObject("/XObject")] = kept
        else:
            del before["/XObject"]
        restored["/Resources"] = before
    return restored, problem


def _stamp_problem(form, mediabox) -> str:
    if not (isinstance(form, StreamObject) and form.get("/Subtype") == "/Form"):
        return "its signature block's stamp is not a drawing (Form XObject)"
    try:
        x0, y0, x1, y1 = (float(v) for v in _resolved(form.get("/BBox")))
        page = [float(v) for v in mediabox or ()]
    except (TypeError, ValueError):
        return "its signature block's stamp has no bounds"
    if "/Matrix" in form or len(page) != 4:
        return "its signature block's stamp is placed oddly"
    if not (page[0] <= x0 < x1 <= page[2] and page[1] <= y0 < y1 <= page[3]):
        return "its signature block's stamp reaches outside the page"
    return ""


@dataclasses.dataclass(frozen=True)
class PdfSignature:
    """The copy's digital signature as pyHanko reads it."""

    intact: bool = False  # the bytes it covers are the ones signed, the signature is sound
    whole_file: bool = False  # nothing after it, or only validation data (B-LT)
    signer: str = ""  # its certificate's subject
    signer_sha256: str = ""  # its certificate's SHA-256 fingerprint
    timestamped: bool = False  # a timestamp authority's signature timestamp (B-T and up)
    validation_data: bool = False  # /DSS: certificates and revocation data (B-LT)
    count: int = 1
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.count == 1 and self.intact and self.whole_file and not self.error

    @property
    def level(self) -> str:
        """The PAdES baseline level it reaches."""
        if self.timestamped and self.validation_data:
            return "B-LT"
        return "B-T" if self.timestamped else "B-B"


@dataclasses.dataclass(frozen=True)
class SignedCopyCheck:
    original_sha256: str
    original_pages: int
    signed_pages: int
    problems: tuple[str, ...]
    signed_sha256: str = ""  # the copy's own
    carries_original: bool = False  # False: a copy made before copies carried their original
    published_sha256: str = ""  # the original's, as the portal published it (if known)
    recorded_signed_sha256: str = ""  # the copy's, as the portal recorded it (if known)
    signature: PdfSignature | None = None  # None: not digitally signed (or unreadable)
    stamped_page: int = 0  # the page whose signature block is filled in (from 1), 0: none

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def certificate_bound(self) -> bool:
        """The copy is, byte for byte, the one the portal recorded: its certificate too."""
        return bool(self.recorded_signed_sha256) and self.recorded_signed_sha256 == (
            self.signed_sha256
        )


def signed_copy_verify(
    *, original: bytes, signed: bytes, sha256: str = "", signed_sha256: str = ""
) -> SignedCopyCheck:
    """Is `signed` the signed copy of `original`, unchanged? `sha256`: the original's SHA-256
    as the portal published it (the acceptance's document_sha256); `signed_sha256`: the copy's
    (its signed_sha256), the only thing that binds the certificate's claims. Either may be
    empty: that part is then not checked and `certificate_bound` stays False (the command,
    proposals.acceptance.selectors.signed_copy_checked, says OK only with both)."""
    sha = hashlib.sha256(original).hexdigest()
    own = hashlib.sha256(signed).hexdigest()
    published, recorded = (sha256 or "").strip().lower(), (signed_sha256 or "").strip().lower()
    problems = _published_problems(sha, own, published, recorded)
    try:
        first, copy = _read(original, "ORIGINAL"), _read(signed, "SIGNED")
    except _Unreadable as exc:
        return SignedCopyCheck(sha, 0, 0, (*problems, str(exc)), own, False, published, recorded)
    attached = _attachments(copy)
    count, stamped = len(first.pages), 0
    if len(copy.pages) <= count:
        problems.append(
            f"The signed copy has {len(copy.pages)} page(s); the original has {count}, so "
            f"there is no certificate after them."
        )
    if attached:
        problems += _attachment_problems(attached, sha)
        try:
            compared, stamped = _compared(first, copy, count)
            problems += compared
            problems += _document_problems(first, copy)
            problems += _certificate_page_problems(copy, count)
        except (PyPdfError, ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(f"The signed copy's pages or catalog cannot be read: {exc}")
    elif recorded and recorded == own:
        # Made before copies carried their original: the portal's record vouches for it; its
        # pages are still checked to belong with this original (content and size).
        problems += _pages_by_content(first, copy, count)
    else:
        problems.append(
            f"The signed copy carries no attached original ({ACCEPTED_ORIGINAL_NAME}): it was "
            f"made before signed copies carried theirs, or the attachment was removed. Such a "
            f"copy is verified only by its own SHA-256 ({own}) as the portal recorded it: run "
            f"this check inside the portal, or give the recorded one (--signed-sha256)."
        )
    certificate = _certificate_text(copy, count)
    if (published or sha) not in certificate:
        problems.append(
            f"The certificate does not name the original's SHA-256 ({published or sha})."
        )
    signature = pdf_signature(signed)
    problems += _signature_problems(
        signature, unsigned_but_recorded=bool(recorded) and (recorded == own)
    )
    return SignedCopyCheck(
        original_sha256=sha,
        original_pages=count,
        signed_pages=len(copy.pages),
        problems=tuple(problems),
        signed_sha256=own,
        carries_original=bool(attached),
        published_sha256=published,
        recorded_signed_sha256=recorded,
        signature=signature,
        stamped_page=stamped,
    )


def pdf_signature(signed: bytes) -> PdfSignature | None:
    """The copy's digital signature read by pyHanko, None when it carries none. Nothing is
    fetched: whose certificate signed is reported (signer_sha256), trusting it is the caller's
    (the portal knows its own certificate)."""
    # pyHanko is imported by the first check, not with the app (~0.3 s a process start).
    from pyhanko.pdf_utils.misc import PdfError
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.diff_analysis import ModificationLevel
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.errors import SignatureValidationError
    from pyhanko.sign.validation.status import SignatureCoverageLevel
    from pyhanko_certvalidator import ValidationContext

    try:
        signatures = PdfFileReader(io.BytesIO(signed), strict=False).embedded_signatures
    except Exception as exc:  # a forged file may break pyHanko's reader anywhere: reported
        return PdfSignature(error=f"its signatures cannot be read: {exc}"[:300])
    if not signatures:
        return None
    try:
        # Its own certificate as the root: trust is not judged here (see above), and pyHanko
        # does not log a failed path for every copy checked.
        own = ValidationContext(trust_roots=[signatures[0].signer_cert], allow_fetching=False)
        stamper = ValidationContext(
            trust_roots=_timestamp_certificates(signatures[0]), allow_fetching=False
        )
        status = outside_event_loop(
            validate_pdf_signature,
            signatures[0],
            signer_validation_context=own,
            ts_validation_context=stamper,
        )
    except (SignatureValidationError, PdfError, ValueError, KeyError, TypeError) as exc:
        return PdfSignature(count=len(signatures), error=f"it cannot be validated: {exc}"[:300])
    cert = status.signing_cert
    return PdfSignature(
        intact=status.intact and status.valid,
        whole_file=status.coverage == SignatureCoverageLevel.ENTIRE_FILE
        or (
            status.coverage == SignatureCoverageLevel.ENTIRE_REVISION
            and status.modification_level == ModificationLevel.LTA_UPDATES
            and _validation_data_alone_after(signatures[0])
        ),
        signer=cert.subject.human_friendly,
        signer_sha256=cert.sha256.hex(),
        timestamped=status.timestamp_validity is not None,
        validation_data="/DSS" in signatures[0].reader.root,
        count=len(signatures),
    )


def _timestamp_certificates(signature) -> list:
    """The certificates the signature's timestamp token carries (none without one)."""
    for attribute in signature.signer_info["unsigned_attrs"] or ():
        if attribute["type"].native == "signature_time_stamp_token":
            token = attribute["values"][0]["content"]
            return [c.chosen for c in token["certificates"] or ()]
    return []


# What pyHanko's update adding the validation data (B-LT) changes in the document information.
_DSS_UPDATE_INFO = {"/ModDate", "/Producer"}


def _validation_data_alone_after(signature) -> bool:
    """One update after the signature, and it added the validation data (/DSS) alone: pyHanko
    counts metadata changes as harmless too (LTA_UPDATES), the portal does not."""
    reader = signature.reader
    signed = signature.signed_revision
    if reader.xrefs.total_revisions != signed + 2:
        return False
    before, after = reader.get_historical_root(signed), reader.root
    if set(after) - set(before) != {"/DSS"} or set(before) - set(after):
        return False
    if any(after.raw_get(key) != before.raw_get(key) for key in before):
        return False
    then_trailer = reader.get_historical_resolver(signed).trailer_view
    now_trailer = reader.trailer_view
    if ("/Info" in then_trailer) != ("/Info" in now_trailer):
        return False
    if "/Info" not in now_trailer:
        return True
    then, now = then_trailer["/Info"], now_trailer["/Info"]  # dereferenced
    keys = (set(then) | set(now)) - _DSS_UPDATE_INFO
    return all(then.get(key) == now.get(key) for key in keys)


def _signature_problems(signature: PdfSignature | None, *, unsigned_but_recorded: bool):
    if signature is None:
        if unsigned_but_recorded:
            return []  # made before copies were signed: the portal's record vouches for it
        return [
            "The signed copy carries no digital signature (PAdES): the seller's signature was "
            "removed, or it was made before signed copies were signed."
        ]
    if signature.error:
        return [f"The signed copy's digital signature is not valid: {signature.error}"]
    problems = []
    if signature.count != 1:
        problems.append(
            f"The signed copy carries {signature.count} digital signatures; the portal signs "
            f"it once."
        )
    if not signature.intact:
        problems.append(
            "The signed copy's digital signature is broken: the bytes it covers were changed "
            "after signing."
        )
    if not signature.whole_file:
        problems.append(
            "The signed copy was changed after it was digitally signed (an update appended "
            "after the signature)."
        )
    return problems


def _certificate_text(copy: PdfReader, count: int) -> str:
    """The certificate's text without white space (a SHA-256 may be broken over lines)."""
    try:
        return "".join("".join((page.extract_text() or "").split()) for page in copy.pages[count:])
    except (PyPdfError, ValueError, KeyError, TypeError, RecursionError):
        return ""  # unreadable: it names nothing


def _published_problems(sha: str, own: str, published: str, recorded: str) -> list[str]:
    problems = []
    for given, what in ((published, "--sha256"), (recorded, "--signed-sha256")):
        if given and not _SHA256.match(given):
            problems.append(f"The SHA-256 given ({what}) is not 64 hexadecimal digits: {given}.")
    if published and published != sha:
        problems.append(
            f"The original's SHA-256 is {sha}, not the one the portal published ({published}): "
            f"it is not the PDF that was accepted."
        )
    if recorded and recorded != own:
        problems.append(
            f"This is not the signed copy the portal recorded: its SHA-256 is {own}, the "
            f"recorded one {recorded}. Its certificate, its pages or its attachment were "
            f"changed, or it was made elsewhere."
        )
    return problems


class _Unreadable(Exception):
    pass


def _read(data: bytes, which: str) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise _Unreadable(f"{which} is encrypted; the portal's PDFs are not.")
        len(reader.pages)  # walks the page tree: a broken one fails here
    except (PyPdfError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise _Unreadable(f"{which} is not a PDF that can be read: {exc}") from None
    return reader


def _attachments(copy: PdfReader) -> dict[str, list[bytes]]:
    try:
        return {name: list(data) for name, data in copy.attachments.items()}
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        return {"(unreadable)": [str(exc).encode()]}


def _attachment_problems(attached: dict[str, list[bytes]], sha: str) -> list[str]:
    problems = []
    others = sorted(name for name in attached if name != ACCEPTED_ORIGINAL_NAME)
    if others:
        problems.append(
            f"The signed copy carries attachments besides {ACCEPTED_ORIGINAL_NAME}: "
            f"{', '.join(others)}."
        )
    carried = attached.get(ACCEPTED_ORIGINAL_NAME, [])
    if len(carried) != 1:
        problems.append(
            f"The signed copy carries {len(carried)} files named {ACCEPTED_ORIGINAL_NAME}; "
            f"the portal attaches one."
        )
    for data in carried:
        theirs = hashlib.sha256(data).hexdigest()
        if theirs != sha:
            problems.append(
                f"The attached {ACCEPTED_ORIGINAL_NAME} is not the original: its SHA-256 is "
                f"{theirs}, the original's {sha}."
            )
    return problems


# --- the pages, compared deeply ------------------------------------------------------------------

PAGE_PARTS = {
    "/Contents": "its content",
    "/Resources": "its resources (fonts, images, drawings)",
    "/Annots": "its annotations",
    "/MediaBox": "its /MediaBox (the page's size)",
    "/CropBox": "its /CropBox (what is shown of the page)",
    "/BleedBox": "its /BleedBox",
    "/TrimBox": "its /TrimBox",
    "/ArtBox": "its /ArtBox",
    "/Rotate": "its rotation (/Rotate)",
    "/AA": "its actions (/AA)",
}


class _TooComplex(Exception):
    pass


def _compared(first: PdfReader, copy: PdfReader, count: int) -> tuple[list[str], int]:
    """Each of the original's pages against the copy's page of the same number, with all that
    is reachable from it, and the page whose signature block is stamped (0: none). One budget
    for the whole document: shared objects (fonts, drawings) are compared once."""
    problems: list[str] = []
    compare = _Comparison(first, copy)
    stamped = 0
    try:
        for n, (mine, theirs) in enumerate(
            zip(first.pages, copy.pages[:count], strict=False), start=1
        ):
            entries, theirs_entries = _page_entries(mine), _page_entries(theirs)
            unstamped = _unstamped(entries, theirs_entries)
            if unstamped is not None:
                theirs_entries, problem = unstamped
                if problem:
                    problems.append(f"Page {n}: {problem}.")
                if stamped:
                    problems.append(
                        f"Pages {stamped} and {n} both carry a signature block's stamp; the "
                        f"portal stamps one."
                    )
                stamped = n
            path = compare.differs(entries, theirs_entries)
            if path is not None:
                problems.append(
                    f"Page {n} differs from the original's page {n}: {_part(path)} (at {path})."
                )
    except _TooComplex:
        problems.append(
            f"The signed copy's pages reach more than {MAX_COMPARED} objects: too many to "
            f"compare, refused."
        )
    return problems, stamped


def _part(path: str) -> str:
    """What a reader would call the page entry at the start of `path` ("/Resources/Font/F1")."""
    top = "/" + path.split("/")[1].split("[")[0] if path.startswith("/") else path
    return PAGE_PARTS.get(top, f"its entry {top}")


def _reference(value) -> tuple[int, int] | None:
    if isinstance(value, IndirectObject):
        return value.idnum, value.generation
    reference = getattr(value, "indirect_reference", None)  # a page as pypdf lists it
    return (reference.idnum, reference.generation) if reference is not None else None


def _resolved(value, depth: int = 0):
    while isinstance(value, IndirectObject):
        depth += 1
        if depth > 32:
            raise _TooComplex
        value = value.get_object()
    return value


def _page_entries(page) -> dict:
    """The page's entries as a viewer uses them: its own (but /Parent) and those it inherits
    from the page tree (/Resources, /MediaBox, /CropBox, /Rotate)."""
    entries = {key: page.raw_get(key) for key in page if key != "/Parent"}
    node, depth = page.get("/Parent"), 0
    while node is not None:
        node, depth = _resolved(node), depth + 1
        if depth > 64 or not isinstance(node, DictionaryObject):
            raise _TooComplex
        for key in INHERITABLE:
            if key not in entries and key in node:
                entries[key] = node.raw_get(key)
        node = node.get("/Parent")
    return entries


class _Comparison:
    """Structural equality of two PDF object graphs, following references: dictionaries (a
    page's /Parent aside: the page trees differ by the certificate), arrays, streams by their
    raw bytes and filters, everything else by value. A pair met again is taken as equal (the
    graphs have cycles: an annotation's /P is its page)."""

    def __init__(self, first: PdfReader, copy: PdfReader) -> None:
        self.seen: set[tuple[int, int]] = set()
        self.budget = MAX_COMPARED
        # A reference to a page (a link's destination, an annotation's /P, an outline item)
        # is compared by the page's number: the pages themselves are compared one by one.
        self.numbers = tuple(
            {_reference(page): n for n, page in enumerate(reader.pages)} for reader in (first, copy)
        )

    def differs(self, mine, theirs) -> str | None:
        """The path of the first difference, or None."""
        path = self._differs(mine, theirs)
        if path is not None:
            # Pairs met on the way were taken as equal while they were being compared: not all
            # are, so none is remembered.
            self.seen.clear()
        return path

    def _differs(self, mine, theirs) -> str | None:
        stack = [(mine, theirs, "")]
        while stack:
            a, b, path = stack.pop()
            pages = self.numbers[0].get(_reference(a)), self.numbers[1].get(_reference(b))
            if pages != (None, None):
                if pages[0] != pages[1]:
                    return path
                continue
            a, b = _resolved(a), _resolved(b)
            self.budget -= 1
            if self.budget < 0:
                raise _TooComplex
            # The readers hold their objects for the whole check, so their ids stay theirs.
            if isinstance(a, (DictionaryObject, ArrayObject)):
                pair = (id(a), id(b))
                if pair in self.seen:
                    continue
                self.seen.add(pair)
            if type(a) is not type(b):
                return path
            if isinstance(a, StreamObject) and a._data != b._data:  # raw, as stored
                return path
            if isinstance(a, dict):
                page = a.get("/Type") == "/Page"
                keys = {k for k in a if not (page and k == "/Parent")}
                other = {k for k in b if not (page and k == "/Parent")}
                if keys != other:
                    return path + min(keys ^ other)
                raw_a = a.raw_get if isinstance(a, DictionaryObject) else a.get
                raw_b = b.raw_get if isinstance(b, DictionaryObject) else b.get
                stack += [(raw_a(k), raw_b(k), path + k) for k in sorted(keys, reverse=True)]
            elif isinstance(a, ArrayObject):
                if len(a) != len(b):
                    return path
                stack += [
                    (x, y, f"{path}[{i}]")
                    for i, (x, y) in reversed(list(enumerate(zip(a, b, strict=True))))
                ]
            elif a != b:
                return path
        return None


def _pages_by_content(first: PdfReader, copy: PdfReader, count: int) -> list[str]:
    """The weaker check of copies made before they carried their original: each page's
    content stream and size."""
    problems = []
    for n, page in enumerate(first.pages[: min(count, len(copy.pages))], start=1):
        theirs = copy.pages[n - 1]
        if _page_content(page) != _page_content(theirs):
            problems.append(f"Page {n} differs from the original's page {n}: its content.")
        elif list(page.mediabox) != list(theirs.mediabox):
            problems.append(f"Page {n} differs from the original's page {n}: its size.")
    return problems


def _page_content(page) -> bytes:
    contents = page.get_contents()
    return contents.get_data() if contents is not None else b""


# --- the document around the pages ---------------------------------------------------------------


def _document_problems(first: PdfReader, copy: PdfReader) -> list[str]:
    """The copy's catalog: no action, no script, nothing the original's has not (its page tree
    aside, and the attachment in its name tree)."""
    mine, theirs = first.trailer["/Root"], copy.trailer["/Root"]
    problems = []
    if "/OpenAction" in theirs:
        problems.append("The signed copy runs an action when opened (/OpenAction).")
    if "/AA" in theirs:
        problems.append("The signed copy runs actions on document events (/AA in its catalog).")
    names = _resolved(theirs.get("/Names")) or DictionaryObject()
    if "/JavaScript" in names:
        problems.append("The signed copy carries document scripts (/Names /JavaScript).")
    compare = _Comparison(first, copy)
    try:
        problems += _form_problems(theirs)
        ignored = {"/Type", "/Pages", "/Names", "/OpenAction", "/AA", *SIGNATURE_CATALOG_KEYS}
        for key in sorted(set(theirs) - ignored):
            if key not in mine:
                problems.append(
                    f"The signed copy's catalog has {key}, which the original's has not."
                )
            elif compare.differs(mine.raw_get(key), theirs.raw_get(key)) is not None:
                problems.append(
                    f"The signed copy's catalog entry {key} differs from the original's."
                )
        own_names = _resolved(mine.get("/Names")) or DictionaryObject()
        for key in sorted(set(names) - {"/EmbeddedFiles", "/JavaScript"}):
            if (
                key not in own_names
                or compare.differs(own_names.raw_get(key), names.raw_get(key)) is not None
            ):
                problems.append(f"The signed copy's name tree {key} is not the original's.")
    except _TooComplex:
        problems.append("The signed copy's catalog is too large to compare, refused.")
    return problems


def _form_problems(catalog) -> list[str]:
    """The copy's form holds the seller's signature field(s) and nothing a reader would run or
    fill in."""
    form = _resolved(catalog.get("/AcroForm"))
    if form is None:
        return []
    if not isinstance(form, DictionaryObject) or "/XFA" in form:
        return ["The signed copy's form (/AcroForm) is not the signature's alone."]
    fields = _resolved(form.get("/Fields")) or ArrayObject()
    if not all(_is_signature_field(field) for field in fields):
        return ["The signed copy's form (/AcroForm) has fields besides the digital signature's."]
    return []


def _is_signature_field(field) -> bool:
    """An invisible signature field (its own widget) that runs nothing."""
    field = _resolved(field)
    if not isinstance(field, DictionaryObject) or field.get("/FT") != "/Sig":
        return False
    if "/Kids" in field or "/AA" in field or "/A" in field:
        return False
    rect = [float(v) for v in _resolved(field.get("/Rect")) or (0, 0, 0, 0)]
    return len(rect) == 4 and (rect[2] - rect[0]) * (rect[3] - rect[1]) == 0


def _certificate_page_problems(copy: PdfReader, count: int) -> list[str]:
    problems = []
    for n, page in enumerate(copy.pages[count:], start=count + 1):
        annotations = _resolved(page.get("/Annots")) or ArrayObject()
        if not all(_is_signature_field(annotation) for annotation in annotations):
            problems.append(f"Page {n}, of the certificate, carries annotations.")
        if "/AA" in page:
            problems.append(f"Page {n}, of the certificate, carries actions (/AA).")
    return problems
