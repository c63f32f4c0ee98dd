from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('portal', '0003_company_service_area'),
    ]

    operations = [
        migrations.AlterField(
            model_name='companyprofile',
            name='bank_name',
            field=models.CharField(blank=True, max_length=200, verbose_name='bank (English)'),
        ),
        migrations.AddField(
            model_name='companyprofile',
            name='bank_name_zh',
            field=models.CharField(blank=True, max_length=200, verbose_name='bank (Chinese)'),
        ),
    ]
