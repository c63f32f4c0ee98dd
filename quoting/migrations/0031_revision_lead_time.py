from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('quoting', '0030_status_texts_kept_as_messages'),
    ]

    operations = [
        migrations.AddField(
            model_name='quoterevision',
            name='lead_time_weeks',
            field=models.PositiveSmallIntegerField(blank=True, editable=False, null=True, verbose_name='lead time (weeks)'),
        ),
        migrations.AddField(
            model_name='quoterevision',
            name='lead_time_unknown',
            field=models.JSONField(blank=True, editable=False, null=True, verbose_name='lead time unknown for'),
        ),
    ]
