package jsonobj

import (
	"encoding/json"
	"testing"
)

func TestEncode(t *testing.T) {
	obj := Object{"b": json.RawMessage(`1`), "a": Quote("x\"y"), "gone": nil, "n": json.RawMessage(`null`)}
	if got := string(Encode(obj)); got != `{"a":"x\"y","b":1,"n":null}` {
		t.Errorf("Encode = %s", got)
	}
	if got := string(Array([]json.RawMessage{Encode(Object{}), Quote("s")})); got != `[{},"s"]` {
		t.Errorf("Array = %s", got)
	}
	if got := string(Array(nil)); got != `[]` {
		t.Errorf("Array(nil) = %s", got)
	}
}

func TestString(t *testing.T) {
	obj := Object{"s": Quote("v"), "n": json.RawMessage(`null`), "x": json.RawMessage(`3`)}
	for name, want := range map[string]string{"s": "v", "n": "", "absent": ""} {
		if got, err := String(obj, name); got != want || err != nil {
			t.Errorf("String(%s) = %q, %v", name, got, err)
		}
	}
	if _, err := String(obj, "x"); err == nil {
		t.Error("a number read as a string")
	}
}

func TestMembers(t *testing.T) {
	obj, err := Members(struct {
		A string `json:"a"`
	}{"x"})
	if err != nil || string(obj["a"]) != `"x"` {
		t.Errorf("Members = %v, %v", obj, err)
	}
	if obj, err := Members(nil); err != nil || obj == nil || len(obj) != 0 {
		t.Errorf("Members(nil) = %v, %v", obj, err)
	}
	if _, err := Members(func() {}); err == nil {
		t.Error("a func encoded")
	}
	c := Copy(obj)
	c["new"] = Quote("n")
	if _, ok := obj["new"]; ok {
		t.Error("Copy shares its map")
	}
}
