package recap

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Text returns the plain text of m that recap counts and that a Summarizer
// may render: the non-empty texts among Content, Refusal and the texts of
// m's parts, in that order, joined with "\n". A part's texts are:
//
//   - for a tool part ([Part.IsTool]), its tool's name, Text, Input and
//     Output (each as compact JSON, unless absent or null; a WireString
//     value as its string) and ErrorText; media in Input or Output (an
//     image block, base64 data beside its media type, a base64 data URL:
//     a tool's screenshot) counts as an attachment (see WithMediaTokens),
//     its bytes replaced by a note "[attachment: MediaType]" (the rest of
//     the JSON, a caption or a URL, stays);
//   - for a file part ([Part.IsFile]), a note "[attachment: MediaType
//     Filename]", leaving out what is empty, never the URL or the data;
//   - for a text, reasoning or refusal part, and an Anthropic document of
//     plain text, its Text;
//   - for an AI SDK step, source or data part ("step-start",
//     "source-url", "source-document", "data-<name>"), nothing: the AI
//     SDK does not send them to the model; nor for an Anthropic
//     "redacted_thinking" block: encrypted thinking of an earlier turn,
//     which Claude does not read (and its data says nothing of its size);
//   - for a part of any other type, one recap does not know (an Anthropic
//     search_result block, a block type newer than
//     recap), the compact JSON of the part ([Part.MarshalJSON]) with its
//     media as attachments, as for a tool part: what the provider is sent
//     is counted, never nothing; but its Text only if its Extra holds a
//     member whose name starts with a NUL byte, an adapter's private mark
//     that says the adapter set Text to what the part costs.
//
// JSON is rendered compact, as providers serialize it, so a pretty-printed
// and a compact copy of the same chat count the same. A message with a
// single text returns it without copying.
func (m Message) Text() string { return m.text(nil) }

// text is Text; with media not nil, it also appends the media types of
// m's attachments: its file parts and the media in its tool parts.
func (m Message) text(media *[]string) string {
	var buf [8]string
	texts := buf[:0]
	if m.Content != "" {
		texts = append(texts, m.Content)
	}
	if m.Refusal != "" {
		texts = append(texts, m.Refusal)
	}
	for i := range m.Parts {
		p := &m.Parts[i]
		switch {
		case p.IsTool():
			in, inMedia := toolText(p.Input, p.Wire)
			out, outMedia := toolText(p.Output, p.Wire)
			if media != nil {
				*media = append(append(*media, inMedia...), outMedia...)
			}
			for _, s := range [...]string{p.toolName(), p.Text, in, out, p.ErrorText} {
				if s != "" {
					texts = append(texts, s)
				}
			}
		case p.IsFile():
			texts = append(texts, p.attachmentNote())
			if media != nil {
				*media = append(*media, p.MediaType)
			}
		case p.textual():
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		case p.marker():
		case p.private():
			// An adapter's own part: its Text is what it costs.
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		default:
			s, types := p.unknownText()
			if media != nil {
				*media = append(*media, types...)
			}
			if s != "" {
				texts = append(texts, s)
			}
		}
	}
	switch len(texts) {
	case 0:
		return ""
	case 1:
		// Most messages have one text (Content, or an AI SDK step-start
		// and a text part): no copy.
		return texts[0]
	}
	return strings.Join(texts, "\n")
}

// textual reports whether p is a part whose Text is all it counts: a
// text, reasoning or refusal part, or a document of plain text.
func (p *Part) textual() bool {
	switch p.Type {
	case PartText, PartReasoning, PartRefusal:
		return true
	case PartDocument:
		return p.Text != ""
	}
	return false
}

// marker reports whether p is a part that costs the model nothing: an AI
// SDK step, source or data part (not sent), or an Anthropic
// redacted_thinking block (not read).
func (p *Part) marker() bool {
	switch p.Type {
	case "step-start", "source-url", "source-document", "redacted_thinking":
		return true
	}
	return strings.HasPrefix(p.Type, "data-")
}

// private reports whether p carries an adapter's private member: an Extra
// member whose name starts with a NUL byte, never a wire member (the
// examples module's conversions mark the items and blocks they carry
// whole so). Such a part counts its Text only: the adapter sets it to what
// the item costs.
func (p *Part) private() bool {
	for k := range p.Extra {
		if strings.HasPrefix(k, "\x00") {
			return true
		}
	}
	return false
}

// unknownText returns what a part of a type recap does not know counts:
// its compact JSON, with the media it holds replaced by notes, and their
// media types. A part whose JSON cannot be written (its Extra holds
// invalid JSON, as an adapter's private mark may) counts as its Text, or
// its type if it has none.
func (p *Part) unknownText() (string, []string) {
	b, err := p.MarshalJSON()
	if err != nil {
		if p.Text != "" {
			return p.Text, nil
		}
		return p.Type, nil
	}
	return toolText(b, WireValue)
}

// attachmentNote returns the note that stands for file part p in Text.
func (p *Part) attachmentNote() string {
	note := "[attachment"
	sep := ": "
	for _, s := range [...]string{p.MediaType, p.Filename} {
		if s != "" {
			note += sep + s
			sep = " "
		}
	}
	return note + "]"
}

// jsonText returns the text of a JSON value for Message.Text: "" for an
// absent or null one, the string itself for a JSON string carried as
// WireString, and otherwise the compact JSON text (or the text as it is,
// trimmed, if it is not valid JSON).
func jsonText(r json.RawMessage, form WireForm) string {
	if len(r) == 0 {
		return ""
	}
	if form == WireString {
		var s string
		if json.Unmarshal(r, &s) == nil {
			return s
		}
	}
	var s string
	if hasInsignificantSpace(r) {
		var b bytes.Buffer
		b.Grow(len(r))
		if json.Compact(&b, r) == nil {
			s = b.String()
		} else {
			s = strings.TrimSpace(string(r))
		}
	} else {
		s = string(r)
	}
	if s == "null" {
		return ""
	}
	return s
}

// hasInsignificantSpace reports whether the JSON text r has white space
// outside its strings: whether json.Compact would change it.
func hasInsignificantSpace(r []byte) bool {
	inString := false
	for i := 0; i < len(r); i++ {
		c := r[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			return true
		}
	}
	return false
}
