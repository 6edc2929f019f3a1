"""The model, as extraction and the briefing ask it: ``route`` chooses between the Anthropic
Messages API (``anthropic_client``) and the host's model over the socket (``host``,
``llm.complete``); ``failures`` says how a call fails, whichever route made it;
``json_objects`` finds the JSON objects in a reply."""
