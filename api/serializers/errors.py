from rest_framework import serializers


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable snake_case code: the engine's for 422, service codes otherwise. "
        "Clients must accept unknown codes."
    )
    message = serializers.CharField(help_text="For people; may change.")
    details = serializers.DictField(
        help_text="Machine-readable context, e.g. {'version': 12} for stale_version."
    )


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()
