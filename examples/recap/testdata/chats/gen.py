#!/usr/bin/env python3
"""Regenerates the sample chats of the recap CLI: python3 gen.py (deterministic)."""
import json, random

def dump(name, msgs):
    with open(name, "w", encoding="utf-8") as f:
        json.dump(msgs, f, indent=1, ensure_ascii=False)
        f.write("\n")

SYS = "You are Atlas, a careful travel and engineering assistant. Answer concisely and cite concrete numbers."

# plain.json: OpenAI chat format, no IDs, a trip being planned.
plain = [{"role": "system", "content": SYS}]
turns = [
 ("I want to plan a 5-day trip to Japan in April. I'm vegetarian and my budget is 2,000 euros without flights.",
  "April is cherry blossom season, so book early. A sensible split for 5 days: 3 nights in Kyoto and 2 in Tokyo. With 2,000 euros you can afford mid-range hotels at about 120 euros a night, which leaves roughly 1,400 euros for food, transport and sights. For vegetarian food, look for shojin ryori, the Buddhist temple cuisine, especially in Kyoto."),
 ("How do I get from Tokyo to Kyoto?",
  "Take the Tokaido Shinkansen. The Nozomi takes about 2 hours 15 minutes and costs around 14,000 yen (about 88 euros) one way. A 7-day Japan Rail Pass now costs 50,000 yen, so for a single round trip it does not pay off."),
 ("Which temples in Kyoto should I not miss?",
  "Fushimi Inari for the thousands of torii gates (go before 8 am to avoid crowds), Kinkaku-ji, the Golden Pavilion, and Kiyomizu-dera with its wooden stage. Tenryu-ji in Arashiyama also serves shojin ryori at Shigetsu, which fits your vegetarian diet."),
 ("Is it easy to find vegetarian food in Tokyo?",
  "Easier than in Kyoto outside temples. Try T's Tantan inside Tokyo Station for vegan ramen, and Ain Soph for vegan desserts. Beware of dashi, the fish stock hidden in many soups and sauces; the phrase 'dashi nuki de onegaishimasu' asks for no dashi."),
 ("What about getting around Tokyo?",
  "Buy a Suica or Pasmo IC card at the airport and load 5,000 yen. It works on all metro and JR lines and in convenience stores. A 72-hour Tokyo Subway Ticket costs 1,500 yen and covers the Tokyo Metro and Toei lines."),
 ("Can you suggest a day trip from Kyoto?",
  "Nara is 45 minutes away by the Kintetsu line. See Todai-ji with its 15-metre bronze Buddha and the free-roaming deer in Nara Park. Deer crackers cost 200 yen. Return by evening to have dinner in Pontocho alley."),
 ("How much cash should I carry?",
  "Japan is still partly cash-based. Carry about 30,000 yen at a time; 7-Eleven ATMs accept foreign cards. Many temples and small restaurants take cash only."),
 ("Remind me of my total budget so far.",
  "Hotels: 5 nights at about 120 euros is 600 euros. Shinkansen round trip: about 176 euros. Day trip to Nara and local transport: about 60 euros. That leaves roughly 1,160 euros for food, entry fees and souvenirs from your 2,000-euro budget."),
 ("Should I get travel insurance?",
  "Yes. Medical care in Japan is excellent but expensive for visitors; a policy covering at least 50,000 euros of medical costs and trip cancellation costs around 40 euros for a week."),
 ("Great. Now write me a day-by-day itinerary.", None),
]
for u, a in turns:
    plain.append({"role": "user", "content": u})
    if a:
        plain.append({"role": "assistant", "content": a})
dump("plain.json", plain)

# agent.json: OpenAI format with tool calls and tool results.
agent = [{"role": "system", "content": SYS},
 {"role": "user", "content": "Our checkout service is returning 502s since this morning. Can you investigate?"},
 {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "query_logs", "arguments": json.dumps({"service": "checkout", "level": "error", "since": "2026-12-02T06:00:00Z", "limit": 5})}}]},
 {"role": "tool", "tool_call_id": "call_1", "content": json.dumps({"lines": ["06:14:02 upstream connect error: payments-api:8443 connection refused", "06:14:05 upstream connect error: payments-api:8443 connection refused", "06:15:11 circuit breaker open for payments-api", "06:20:40 TLS handshake timeout payments-api:8443", "06:21:00 502 returned to client for POST /checkout"]})},
 {"role": "assistant", "content": "The checkout service cannot reach payments-api on port 8443: connection refused from 06:14 UTC, then TLS handshake timeouts, and the circuit breaker opened at 06:15. The 502s are a consequence. Let me check the payments-api deployment."},
 {"role": "user", "content": "Yes, check the deployment history."},
 {"role": "assistant", "content": None, "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "deployments", "arguments": json.dumps({"service": "payments-api", "last": 3})}}]},
 {"role": "tool", "tool_call_id": "call_2", "content": json.dumps([{"version": "v2.41.0", "at": "2026-12-02T06:12:30Z", "by": "ci", "change": "rotate TLS certificates; move listener to 9443"}, {"version": "v2.40.3", "at": "2026-11-30T15:02:00Z", "by": "ci", "change": "bump dependencies"}, {"version": "v2.40.2", "at": "2026-11-28T10:44:00Z", "by": "ci", "change": "fix rounding in refunds"}])},
 {"role": "assistant", "content": "Found it: payments-api v2.41.0 was deployed at 06:12:30 UTC, two minutes before the first error, and it moved the listener from port 8443 to 9443 while rotating TLS certificates. Checkout still dials 8443. Two fixes: point checkout's PAYMENTS_URL to port 9443, or roll payments-api back to v2.40.3."},
 {"role": "user", "content": "Roll back payments-api for now."},
 {"role": "assistant", "content": None, "tool_calls": [{"id": "call_3", "type": "function", "function": {"name": "rollback", "arguments": json.dumps({"service": "payments-api", "to": "v2.40.3"})}}]},
 {"role": "tool", "tool_call_id": "call_3", "content": json.dumps({"ok": True, "version": "v2.40.3", "healthy_pods": "6/6"})},
 {"role": "assistant", "content": "Rolled back to v2.40.3; 6 of 6 pods are healthy. The circuit breaker should close within 60 seconds."},
 {"role": "user", "content": "Write the incident summary for the postmortem."},
]
dump("agent.json", agent)

# aisdk.json: AI SDK UIMessages with parts.
aisdk = [
 {"id": "sys", "role": "system", "parts": [{"type": "text", "text": SYS}]},
 {"id": "u1", "role": "user", "metadata": {"createdAt": 1764655200000}, "parts": [{"type": "text", "text": "What's the weather in Lisbon this weekend, and is it good for the beach?"}]},
 {"id": "a1", "role": "assistant", "parts": [
   {"type": "step-start"},
   {"type": "reasoning", "text": "Need the forecast for Saturday and Sunday in Lisbon.", "state": "done"},
   {"type": "tool-getWeather", "toolCallId": "c1", "state": "output-available", "input": {"city": "Lisbon", "days": ["Sat", "Sun"]}, "output": {"Sat": {"tempC": 21, "sky": "sunny", "windKmh": 12}, "Sun": {"tempC": 19, "sky": "cloudy", "windKmh": 25}}},
   {"type": "step-start"},
   {"type": "text", "text": "Saturday looks best: 21°C, sunny, light wind. Sunday is cloudier at 19°C with 25 km/h wind. Go to Carcavelos beach on Saturday.", "state": "done"}]},
 {"id": "u2", "role": "user", "parts": [{"type": "text", "text": "Find me a seafood restaurant near Carcavelos."}]},
 {"id": "a2", "role": "assistant", "parts": [
   {"type": "tool-searchPlaces", "toolCallId": "c2", "state": "output-available", "input": {"near": "Carcavelos", "kind": "seafood"}, "output": [{"name": "Marisqueira Azul", "rating": 4.6, "priceLevel": 2}, {"name": "Onda", "rating": 4.3, "priceLevel": 3}]},
   {"type": "source-url", "sourceId": "s1", "url": "https://example.com/places/azul", "title": "Marisqueira Azul"},
   {"type": "text", "text": "Marisqueira Azul has a 4.6 rating and moderate prices; Onda is pricier at 4.3.", "state": "done"}]},
 {"id": "u3", "role": "user", "parts": [{"type": "text", "text": "Book Marisqueira Azul for two on Saturday at 8 pm."}, {"type": "file", "mediaType": "image/png", "filename": "calendar.png", "url": "data:image/png;base64,iVBORw0KGgo="}]},
 {"id": "a3", "role": "assistant", "parts": [
   {"type": "dynamic-tool", "toolName": "mcp.bookTable", "toolCallId": "c3", "state": "output-error", "input": {"place": "Marisqueira Azul", "people": 2, "at": "Sat 20:00"}, "errorText": "no tables before 21:30"},
   {"type": "text", "text": "They are full until 21:30 on Saturday. Shall I book 21:30?", "state": "done"}]},
 {"id": "u4", "role": "user", "parts": [{"type": "text", "text": "Yes, 21:30 is fine."}]},
 {"id": "a4", "role": "assistant", "parts": [
   {"type": "dynamic-tool", "toolName": "mcp.bookTable", "toolCallId": "c4", "state": "output-available", "input": {"place": "Marisqueira Azul", "people": 2, "at": "Sat 21:30"}, "output": {"confirmation": "MA-2231"}},
   {"type": "data-booking", "id": "b1", "data": {"ref": "MA-2231"}},
   {"type": "text", "text": "Booked: Marisqueira Azul, Saturday 21:30, two people, confirmation MA-2231.", "state": "done"}]},
 {"id": "u5", "role": "user", "parts": [{"type": "text", "text": "How do I get there from the city centre?"}]},
]
dump("aisdk.json", aisdk)

# multilingual.json: UIMessages in several scripts.
ml = [("u1", "user", "Bonjour ! Je cherche un cadeau pour ma grand-mère, elle adore le jardinage."),
 ("a1", "assistant", "Pourquoi pas un sécateur de qualité, des gants en cuir ou un kit de graines anciennes ? Comptez entre 20 et 60 euros."),
 ("u2", "user", "我也想给我的朋友买一本关于园艺的书，你有什么推荐吗？"),
 ("a2", "assistant", "推荐《园艺四季》，它按季节介绍种植方法，适合初学者。价格大约是六十元人民币。"),
 ("u3", "user", "Also, wie sage ich 'Alles Gute zum Geburtstag' auf Japanisch?"),
 ("a3", "assistant", "Auf Japanisch sagt man „お誕生日おめでとうございます“ (o-tanjōbi omedetō gozaimasu)."),
 ("u4", "user", "مرحبا، هل يمكنك كتابة بطاقة تهنئة قصيرة بالعربية؟"),
 ("a4", "assistant", "بالتأكيد: «عيد ميلاد سعيد يا جدتي، أتمنى لك سنة مليئة بالزهور والفرح.» 🌷"),
 ("u5", "user", "क्या आप इसे हिंदी में भी लिख सकते हैं?"),
 ("a5", "assistant", "ज़रूर: \"जन्मदिन मुबारक हो दादी, आपका साल फूलों और खुशियों से भरा हो।\" 🎂👩‍👩‍👧"),
 ("u6", "user", "Perfect — now summarise all the gift ideas in English, please.")]
dump("multilingual.json", [{"id": i, "role": r, "parts": [{"type": "text", "text": t}]} for i, r, t in ml])

# long.json: 520 messages of an engineering chat, UIMessages with content.
rng = random.Random(42)
services = ["auth", "billing", "search", "checkout", "inventory", "notifications", "gateway", "reports"]
issues = ["p99 latency rose to {n} ms", "memory grew to {n} MiB", "error rate hit {n} per minute", "queue depth reached {n}", "cache hit ratio fell to {n}%"]
causes = ["a missing index on the {t} table", "an N+1 query in the {t} handler", "a goroutine leak in the {t} worker", "an unbounded retry loop calling {t}", "a stale connection pool to {t}"]
fixes = ["added the index and latency dropped to {n} ms", "batched the queries, cutting calls by {n}x", "closed the leaking channel; memory is flat at {n} MiB", "capped retries at {n} with jittered backoff", "set pool max lifetime to {n} minutes"]
longchat = [{"id": "sys", "role": "system", "content": SYS}]
for i in range(1, 261):
    s, t = rng.choice(services), rng.choice(services)
    n = rng.randint(3, 900)
    q = f"Day {i}: the {s} service {rng.choice(issues).format(n=n)}. What should we look at?"
    a = (f"For {s}, I checked the traces. The likely cause is {rng.choice(causes).format(t=t)}. "
         f"We {rng.choice(fixes).format(n=rng.randint(2, 120))}. "
         f"Ticket OPS-{1000 + i} tracks the follow-up.")
    longchat.append({"id": f"u{i}", "role": "user", "content": q})
    longchat.append({"id": f"a{i}", "role": "assistant", "content": a})
longchat.append({"id": "u261", "role": "user", "content": "Which services had the most incidents this quarter, and which fixes worked best?"})
dump("long.json", longchat)
# agentloop.json: OpenAI format, one request followed by an 80-step agent
# loop whose tool results are source files, test runs and search hits of
# 400 to 1,500 tokens: what WithMaxTurnTokens is for.
rng = random.Random(7)
pkgs = ["store", "window", "budget", "chunk", "flight", "prompt", "tokens", "clearing"]
def source(name, n):
    lines = [f"package {name}", "", "import (", '\t"context"', '\t"fmt"', ")", ""]
    for k in range(n):
        f = f"{rng.choice(['load', 'save', 'plan', 'fit', 'merge', 'count'])}{rng.choice(['Chunk', 'Window', 'Summary', 'Turn', 'Batch'])}{k}"
        lines += [f"// {f} handles case {k} of the {name} package.",
                  f"func {f}(ctx context.Context, n int) (int, error) {{",
                  f"\tif n < {rng.randint(1, 99)} {{", f'\t\treturn 0, fmt.Errorf("{name}: {f}: %d too small", n)', "\t}",
                  f"\treturn n * {rng.randint(2, 9)}, nil", "}", ""]
    return "\n".join(lines)
def tests(name, n):
    out = []
    for k in range(n):
        ok = rng.random() > 0.15
        out.append(f"=== RUN   Test{name.title()}{k}\n--- {'PASS' if ok else 'FAIL'}: Test{name.title()}{k} (0.0{rng.randint(0, 9)}s)")
        if not ok:
            out.append(f"    {name}_test.go:{rng.randint(10, 400)}: got {rng.randint(0, 99)}, want {rng.randint(100, 200)}")
    return "\n".join(out)
loop = [{"role": "system", "content": "You are a coding agent with tools to read files, run tests and search the repository."},
        {"role": "user", "content": "Rename the Compressor's internal 'plan' step to 'split' across the repository, keep the public API unchanged, and make every test pass."}]
for step in range(1, 81):
    name = rng.choice(pkgs)
    kind = rng.choice(["read_file", "read_file", "run_tests", "grep"])
    cid = f"call_{step}"
    if kind == "read_file":
        args, result = {"path": f"{name}.go"}, source(name, rng.randint(8, 22))
    elif kind == "run_tests":
        args, result = {"package": f"./{name}"}, tests(name, rng.randint(15, 45))
    else:
        args = {"pattern": "plan(", "dir": "."}
        result = "\n".join(f"{rng.choice(pkgs)}.go:{rng.randint(1, 900)}: \tp, err := c.plan(msgs, ix, prev) // step {k}" for k in range(rng.randint(20, 60)))
    text = f"Step {step}: {'reading' if kind == 'read_file' else 'running' if kind == 'run_tests' else 'searching'} {name} to continue the rename."
    loop.append({"role": "assistant", "content": text, "tool_calls": [{"id": cid, "type": "function", "function": {"name": kind, "arguments": json.dumps(args)}}]})
    loop.append({"role": "tool", "tool_call_id": cid, "content": result})
loop.append({"role": "assistant", "content": "The rename is done: 'plan' is now 'split' in every package, the public API is unchanged and all tests pass."})
dump("agentloop.json", loop)

# anthropic.json: agent.json as an Anthropic Messages API request body,
# its system prompt top-level, tool calls as tool_use blocks and results
# as tool_result blocks in user messages.
def to_anthropic(chat):
    out = []
    for m in chat[1:]:
        if m["role"] == "tool":
            out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}]})
        elif m.get("tool_calls"):
            blocks = [{"type": "text", "text": m["content"]}] if m["content"] else []
            blocks += [{"type": "tool_use", "id": c["id"], "name": c["function"]["name"], "input": json.loads(c["function"]["arguments"])} for c in m["tool_calls"]]
            out.append({"role": "assistant", "content": blocks})
        else:
            out.append({"role": m["role"], "content": m["content"]})
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "system": chat[0]["content"], "messages": out}
dump("anthropic.json", to_anthropic(agent))
print("ok")
