// Package jsonobj holds what the adapters' conversions share: JSON objects
// as maps of raw members, read and written member by member so that what
// they do not model passes through unchanged.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
)

// Object is a JSON object's members, by name.
type Object = map[string]json.RawMessage

// Members returns the members of v's JSON encoding, an object (empty for
// null).
func Members(v any) (Object, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var obj Object
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	if obj == nil {
		obj = Object{}
	}
	return obj, nil
}

// Copy returns a copy of obj to add members to.
func Copy(obj Object) Object {
	out := make(Object, len(obj)+4)
	for k, v := range obj {
		out[k] = v
	}
	return out
}

// String returns obj[name] as a string: "" if it is absent or null, an
// error if it is not a string.
func String(obj Object, name string) (string, error) {
	v, ok := obj[name]
	if !ok || v == nil || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fmt.Errorf("%q: not a string: %.40s", name, v)
	}
	return s, nil
}

// Quote returns the JSON string of s.
func Quote(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// Encode writes obj with its members in the order of their names, leaving
// out those whose value is nil (not JSON null, which is "null").
func Encode(obj Object) json.RawMessage {
	keys := make([]string, 0, len(obj))
	for k, v := range obj {
		if v != nil {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(Quote(k))
		buf.WriteByte(':')
		buf.Write(obj[k])
	}
	buf.WriteByte('}')
	return buf.Bytes()
}

// Array returns the JSON array of elems.
func Array(elems []json.RawMessage) json.RawMessage {
	out := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}
