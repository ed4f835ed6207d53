"""auto_draw becomes a choice (docs/fair-play.md): the old switch drew for a player when their
hand could not take the pile, which told everyone at the table what that hand held. On stays
on as "pile_closed" (draw only when the table shows nobody may take the pile), off is "off"."""

from typing import Any

from django.db import migrations, models


def _from_switch(apps: Any, schema_editor: Any) -> None:
    player = apps.get_model("mailplay", "MailPlayer")
    player.objects.filter(auto_draw=False).update(auto_draw_choice="off")


def _to_switch(apps: Any, schema_editor: Any) -> None:
    player = apps.get_model("mailplay", "MailPlayer")
    player.objects.filter(auto_draw_choice="off").update(auto_draw=False)


class Migration(migrations.Migration):
    dependencies = [("mailplay", "0002_reply_tokens_per_email_and_dedupe_per_player")]

    operations = [
        migrations.AddField(
            model_name="mailplayer",
            name="auto_draw_choice",
            field=models.CharField(default="pile_closed", max_length=16),
        ),
        migrations.RunPython(_from_switch, _to_switch),
        migrations.RemoveField(model_name="mailplayer", name="auto_draw"),
        migrations.RenameField(
            model_name="mailplayer", old_name="auto_draw_choice", new_name="auto_draw"
        ),
        migrations.AlterField(
            model_name="mailplayer",
            name="auto_draw",
            field=models.CharField(
                choices=[
                    ("off", "Never: I draw or take the pile myself"),
                    (
                        "pile_closed",
                        "When nobody may take the pile (empty, or blocked on top)",
                    ),
                    ("always", "Always, even when I could take the pile"),
                ],
                default="pile_closed",
                max_length=16,
            ),
        ),
    ]
