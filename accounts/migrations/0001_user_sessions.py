"""accounts.UserSession: database sessions with the signed-in account's id beside them."""

from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="UserSession",
            fields=[
                (
                    "session_key",
                    models.CharField(
                        max_length=40, primary_key=True, serialize=False, verbose_name="session key"
                    ),
                ),
                ("session_data", models.TextField(verbose_name="session data")),
                ("expire_date", models.DateTimeField(db_index=True, verbose_name="expire date")),
                ("user_id", models.BigIntegerField(blank=True, null=True)),
            ],
            options={
                "db_table": "accounts_session",
                "indexes": [
                    models.Index(
                        condition=models.Q(("user_id__isnull", False)),
                        fields=["user_id"],
                        name="session_user_idx",
                    )
                ],
            },
        ),
    ]
