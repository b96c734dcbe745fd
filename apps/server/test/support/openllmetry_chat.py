"""Chat completions through the openai package, traced by OpenLLMetry's
opentelemetry-instrumentation-openai and exported to Arbiter over OTLP/HTTP protobuf.

The experiment is a resource attribute; the user travels as W3C baggage, which a
BaggageSpanProcessor copies onto the spans (OTLP does not carry baggage).

Arguments: <Arbiter traces URL> <API key> <OpenAI base URL> <experiment> <user>...
Prints each answer on a line of its own.
"""

import sys

from openai import OpenAI
from opentelemetry import baggage, context, trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.processor.baggage import ALLOW_ALL_BAGGAGE_KEYS, BaggageSpanProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor


def main(traces_url: str, key: str, openai_url: str, experiment: str, users: list) -> None:
    resource = Resource.create(
        {"service.name": "openllmetry-chat", "arbiter.experiment": experiment}
    )
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BaggageSpanProcessor(ALLOW_ALL_BAGGAGE_KEYS))
    exporter = OTLPSpanExporter(endpoint=traces_url, headers={"x-api-key": key})
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    OpenAIInstrumentor().instrument()
    client = OpenAI(base_url=openai_url, api_key="sk-test", max_retries=0)
    for user in users:
        token = context.attach(baggage.set_baggage("arbiter.user_id", user))
        try:
            reply = client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[
                    {"role": "system", "content": "Answer in one word."},
                    {"role": "user", "content": f"Greet {user}"},
                ],
            )
        finally:
            context.detach(token)
        print(reply.choices[0].message.content)
    provider.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
