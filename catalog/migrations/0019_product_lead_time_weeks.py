import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0018_premium_support_name_without_a_city'),
    ]

    operations = [
        migrations.AddField(
            model_name='product',
            name='lead_time_weeks',
            field=models.PositiveSmallIntegerField(blank=True, help_text='Weeks from order to delivery, as your distributor quotes them. Empty: unknown (a quote with this product then prints no delivery time).', null=True, validators=[django.core.validators.MinValueValidator(1)], verbose_name='lead time (weeks)'),
        ),
    ]
