from django.db import migrations, models


def fingerprint_frozen_revisions(apps, schema_editor):
    """Revisions sent before fingerprints existed get theirs from what they hold: they are
    frozen, so it is what was sent."""
    from quoting.quotes.content_hash import content_sha256

    QuoteRevision = apps.get_model("quoting", "QuoteRevision")
    QuoteLine = apps.get_model("quoting", "QuoteLine")
    frozen = QuoteRevision.objects.filter(frozen_at__isnull=False, content_sha256="")
    for revision in frozen.select_related("quote").iterator(chunk_size=200):
        revision.content_sha256 = content_sha256(
            revision, QuoteLine.objects.filter(revision_id=revision.pk),
            quote_number=revision.quote.number, currency=revision.quote.currency, version=1)
        revision.save(update_fields=["content_sha256"])


class Migration(migrations.Migration):

    dependencies = [
        ("quoting", "0010_rack_appendix"),
    ]

    operations = [
        migrations.AddField(
            model_name="quoterevision",
            name="content_sha256",
            field=models.CharField(blank=True, editable=False, max_length=80,
                                   verbose_name="content fingerprint"),
        ),
        migrations.AlterField(
            model_name='quoteevent',
            name='verb',
            field=models.CharField(choices=[('created', 'Created'), ('lines_from_design', 'Lines from the design'), ('line_added', 'Line added'), ('line_changed', 'Line changed'), ('line_removed', 'Line removed'), ('discount_changed', 'Quote discount changed'), ('validity_changed', 'Validity changed'), ('tax_changed', 'VAT changed'), ('workload_changed', 'TCO workload changed'), ('status_changed', 'Status changed'), ('approval_requested', 'Approval requested'), ('approved', 'Discount approved'), ('rejected', 'Discount rejected'), ('revision_created', 'New revision'), ('alternative_added', 'Alternative added'), ('share_link_created', 'Share link created'), ('share_link_revoked', 'Share link revoked'), ('accepted_document_replaced', 'Accepted PDF replaced by the sent one')], max_length=40, verbose_name='what'),
        ),
        migrations.RunPython(fingerprint_frozen_revisions, migrations.RunPython.noop),
    ]
