from rest_framework import serializers

from api.serializers.typed import OptionValueField


class VariantOptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.ChoiceField(choices=["choice", "bool", "int"])
    default = OptionValueField()
    choices = serializers.ListField(child=OptionValueField(), required=False)
    minimum = serializers.IntegerField(required=False)
    maximum = serializers.IntegerField(required=False)
    help = serializers.CharField()


class VariantSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    summary = serializers.CharField()
    players = serializers.ListField(child=serializers.IntegerField())
    deck_size = serializers.IntegerField()
    cards_dealt = serializers.DictField(child=serializers.IntegerField())
    options = VariantOptionSerializer(many=True)
