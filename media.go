package recap

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Media inside a tool's input or output: a tool that returns a screenshot
// (Anthropic's image blocks in a tool_result, MCP's image content, the AI
// SDK's media parts, a Responses function_call_output's input_image)
// carries it as base64 in JSON. A provider bills such an image as an image,
// not as its base64 text, so recap counts it as an attachment (see
// WithMediaTokens) and Message.Text shows an attachment note in its place,
// as for a file part: the count errs high by the media rule, not by a
// million tokens of base64, and a Summarizer never reads the bytes.

// mediaTypeKeys are the members that name the media type of a base64
// payload beside it: Anthropic's, the AI SDK's, MCP's and Gemini's
// spellings.
var mediaTypeKeys = [...]string{"media_type", "mediaType", "mimeType", "mime_type"}

// mediaDataKeys are the members that hold a base64 payload.
var mediaDataKeys = [...]string{"data", "blob", "base64"}

// imageBlockTypes are the "type"s of objects that are images whatever
// their source (a URL or a file ID costs the same as base64 bytes).
var imageBlockTypes = map[string]bool{"image": true, "input_image": true, "image_url": true, "image-data": true, "image-url": true}

// mediaSigns are texts one of which every JSON text holding media
// contains: "base64" (data URLs, Anthropic's base64 sources), "image" (an
// image block's type or media type), and the "mime" or "media" of a media
// type's key (mimeType, mime_type, mediaType, media_type).
var mediaSigns = [...]string{"base64", "image", "mime", "media"}

// mayHoldMedia reports whether JSON text s may hold media: a cheap test
// that spares the scan of most tool results.
func mayHoldMedia(s string) bool {
	for _, sign := range mediaSigns {
		if strings.Contains(s, sign) {
			return true
		}
	}
	return false
}

// base64URLType returns the media type of a base64 data URL
// ("data:image/png;base64,..."), lower case, or false if s is not one.
func base64URLType(s string) (string, bool) {
	meta, _, ok := strings.Cut(s, ",")
	if !ok || !strings.HasPrefix(meta, "data:") || !strings.HasSuffix(meta, ";base64") {
		return "", false
	}
	mt := dataURLType(meta + ",") // as the OpenAI format reads a data URL
	if mt == "" {
		mt = "application/octet-stream"
	}
	return strings.ToLower(mt), true
}

// mediaNote is what stands for a media payload of type mt in a text.
func mediaNote(mt string) string { return "[attachment: " + mt + "]" }

// elideMedia returns JSON text r with the bytes of each medium it holds
// (base64 data beside a media type, a base64 data URL) replaced by the
// JSON string of its note, and the media types it found (those, and image
// blocks of any source; see jsonValue.elide). The rest of r is copied
// byte for byte, less white space between tokens. It returns r itself and
// no types when r holds none, or is not JSON.
func elideMedia(r []byte) ([]byte, []string) {
	sc := jsonScanner{s: r}
	v, ok := sc.value(0)
	sc.skipSpace()
	if !ok || sc.i != len(r) {
		return r, nil
	}
	var types []string
	v = v.elide(&types, false)
	if len(types) == 0 {
		return r, nil
	}
	b := make([]byte, 0, len(r)/2)
	return v.appendTo(b), types
}

// jsonValue is a JSON value as it was written, its members in order.
type jsonValue struct {
	raw    []byte      // a scalar as written: a string with its quotes, a number, true, false or null
	object bool        // keys and vals are its members
	array  bool        // vals are its elements
	keys   [][]byte    // an object's keys as written, quotes included
	vals   []jsonValue // an object's values, an array's elements
}

// maxJSONDepth bounds the recursion of the scanner, as encoding/json's
// limit does.
const maxJSONDepth = 10000

// jsonScanner reads JSON text into jsonValues without unquoting strings:
// a megabyte of base64 is one IndexByte away.
type jsonScanner struct {
	s []byte
	i int
}

func (sc *jsonScanner) skipSpace() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// value reads the value at sc.i, reporting false for text that is not
// JSON.
func (sc *jsonScanner) value(depth int) (jsonValue, bool) {
	sc.skipSpace()
	if sc.i >= len(sc.s) || depth > maxJSONDepth {
		return jsonValue{}, false
	}
	switch c := sc.s[sc.i]; {
	case c == '{' || c == '[':
		v := jsonValue{object: c == '{', array: c == '['}
		end := byte('}')
		if v.array {
			end = ']'
		}
		sc.i++
		sc.skipSpace()
		if sc.i < len(sc.s) && sc.s[sc.i] == end {
			sc.i++
			return v, true
		}
		for {
			if v.object {
				sc.skipSpace()
				key, ok := sc.str()
				if !ok {
					return jsonValue{}, false
				}
				sc.skipSpace()
				if sc.i >= len(sc.s) || sc.s[sc.i] != ':' {
					return jsonValue{}, false
				}
				sc.i++
				v.keys = append(v.keys, key)
			}
			e, ok := sc.value(depth + 1)
			if !ok {
				return jsonValue{}, false
			}
			v.vals = append(v.vals, e)
			sc.skipSpace()
			if sc.i >= len(sc.s) {
				return jsonValue{}, false
			}
			switch sc.s[sc.i] {
			case ',':
				sc.i++
			case end:
				sc.i++
				return v, true
			default:
				return jsonValue{}, false
			}
		}
	case c == '"':
		raw, ok := sc.str()
		return jsonValue{raw: raw}, ok
	case c == '-' || '0' <= c && c <= '9':
		j := sc.i
		for j < len(sc.s) && strings.IndexByte("+-.0123456789eE", sc.s[j]) >= 0 {
			j++
		}
		v := jsonValue{raw: sc.s[sc.i:j]}
		sc.i = j
		return v, true
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(sc.s[sc.i:], []byte(lit)) {
			v := jsonValue{raw: sc.s[sc.i : sc.i+len(lit)]}
			sc.i += len(lit)
			return v, true
		}
	}
	return jsonValue{}, false
}

// str reads the string at sc.i, quotes included.
func (sc *jsonScanner) str() ([]byte, bool) {
	if sc.i >= len(sc.s) || sc.s[sc.i] != '"' {
		return nil, false
	}
	for j := sc.i + 1; ; {
		k := bytes.IndexByte(sc.s[j:], '"')
		if k < 0 {
			return nil, false
		}
		end := j + k
		escapes := 0
		for b := end - 1; b > sc.i && sc.s[b] == '\\'; b-- {
			escapes++
		}
		if escapes%2 == 0 {
			raw := sc.s[sc.i : end+1]
			sc.i = end + 1
			return raw, true
		}
		j = end + 1
	}
}

// isString reports whether v is a string.
func (v *jsonValue) isString() bool { return len(v.raw) > 0 && v.raw[0] == '"' }

// index returns the position of member key of an object, or -1.
func (v *jsonValue) index(key string) int {
	for i, k := range v.keys {
		if len(k) == len(key)+2 && string(k[1:len(k)-1]) == key {
			return i
		}
	}
	return -1
}

// member returns an object's member named key, if it is a string.
func (v *jsonValue) member(key string) (string, bool) {
	i := v.index(key)
	if i < 0 || !v.vals[i].isString() {
		return "", false
	}
	var s string
	if json.Unmarshal(v.vals[i].raw, &s) != nil {
		return "", false
	}
	return s, true
}

// dataURL returns the media type of v if it is a string holding a base64
// data URL, reading only the URL's start.
func (v *jsonValue) dataURL() (string, bool) {
	if !bytes.HasPrefix(v.raw, []byte(`"data:`)) {
		return "", false
	}
	comma := bytes.IndexByte(v.raw, ',')
	if comma < 0 {
		return "", false
	}
	var meta string
	if json.Unmarshal(append(v.raw[:comma:comma], ',', '"'), &meta) != nil {
		return "", false
	}
	return base64URLType(meta)
}

// inlineData returns the media type of an object that holds base64 data
// beside its (non-text) media type, and the index of the data member.
func (v *jsonValue) inlineData() (string, int, bool) {
	if !v.object {
		return "", 0, false
	}
	mt := ""
	for _, k := range mediaTypeKeys {
		if s, ok := v.member(k); ok && s != "" {
			mt = strings.ToLower(s)
			break
		}
	}
	if mt == "" || strings.HasPrefix(mt, "text/") {
		return "", 0, false
	}
	for _, k := range mediaDataKeys {
		if i := v.index(k); i >= 0 && v.vals[i].isString() {
			return mt, i, true
		}
	}
	return "", 0, false
}

// imageBlock returns the media type of an object whose "type" makes it an
// image, whatever its source: its own media type, that of the data inside
// it, or "image/*".
func (v *jsonValue) imageBlock() (string, bool) {
	if !v.object {
		return "", false
	}
	if typ, ok := v.member("type"); !ok || !imageBlockTypes[typ] {
		return "", false
	}
	mt := ""
	for _, k := range mediaTypeKeys {
		if s, ok := v.member(k); ok {
			mt = strings.ToLower(s)
			break
		}
	}
	if mt == "" {
		mt = v.innerMediaType(0)
	}
	if !strings.HasPrefix(mt, "image/") {
		mt = "image/*"
	}
	return mt, true
}

// innerMediaType returns the media type of the first media payload inside
// v (an image block's source or data URL), or "".
func (v *jsonValue) innerMediaType(depth int) string {
	if depth > maxJSONDepth {
		return ""
	}
	for i := range v.vals {
		e := &v.vals[i]
		if mt, _, ok := e.inlineData(); ok {
			return mt
		}
		if mt, ok := e.dataURL(); ok {
			return mt
		}
		if mt := e.innerMediaType(depth + 1); mt != "" {
			return mt
		}
	}
	return ""
}

// noteValue is the JSON string of the note for media of type mt.
func noteValue(mt string) jsonValue {
	note, _ := json.Marshal(mediaNote(mt)) // a string always marshals
	return jsonValue{raw: note}
}

// elide replaces the bytes of the media in v by notes, appending each
// medium's type to types once: an image block counts once, whatever data
// it holds (inMedia: v is inside one). Everything else stays, so that a
// caption or a URL beside an image still reads as text.
func (v jsonValue) elide(types *[]string, inMedia bool) jsonValue {
	if mt, ok := v.dataURL(); ok {
		if !inMedia {
			*types = append(*types, mt)
		}
		return noteValue(mt)
	}
	if !v.object && !v.array {
		return v
	}
	data, dataType := -1, ""
	if mt, ok := v.imageBlock(); ok {
		if !inMedia {
			*types = append(*types, mt)
		}
		inMedia = true
	}
	if mt, i, ok := v.inlineData(); ok {
		if !inMedia {
			*types = append(*types, mt)
		}
		data, dataType = i, mt
	}
	vals := make([]jsonValue, len(v.vals))
	for i := range v.vals {
		if i == data {
			vals[i] = noteValue(dataType)
			continue
		}
		vals[i] = v.vals[i].elide(types, inMedia)
	}
	v.vals = vals
	return v
}

// appendTo appends v as compact JSON to b.
func (v jsonValue) appendTo(b []byte) []byte {
	switch {
	case v.object:
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(b, k...), ':')
			b = v.vals[i].appendTo(b)
		}
		return append(b, '}')
	case v.array:
		b = append(b, '[')
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendTo(b)
		}
		return append(b, ']')
	}
	return append(b, v.raw...)
}

// toolText returns the text of a tool part's Input or Output r for
// Message.Text (see jsonText), with the media it holds replaced by notes,
// and their media types. A string carried as WireString may be a data URL,
// or JSON text holding media itself.
func toolText(r json.RawMessage, form WireForm) (string, []string) {
	s := jsonText(r, form)
	if !mayHoldMedia(s) {
		return s, nil
	}
	if mt, ok := base64URLType(s); ok {
		return mediaNote(mt), []string{mt}
	}
	out, types := elideMedia([]byte(s))
	if len(types) == 0 {
		return s, nil
	}
	return string(out), types
}
