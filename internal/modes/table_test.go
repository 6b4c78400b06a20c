package modes

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Every setting, given alone, makes a mode's definition differ and its
// settings non-zero: a setting that Equal or IsZero forgot would let merge
// and compare join files whose modes loaded different things. (Equal once
// left out timeline, timeline_min and timeline_cap.)
func TestEverySettingCounts(t *testing.T) {
	rt := reflect.TypeOf(ProfilerSettings{})
	for i := range rt.NumField() {
		var ps ProfilerSettings
		v := reflect.ValueOf(&ps).Elem().Field(i)
		switch v.Kind() {
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64:
			v.SetInt(int64(time.Millisecond))
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"X"}))
		}
		name := rt.Field(i).Name
		if ps.IsZero() {
			t.Errorf("%s given: IsZero", name)
		}
		a, b := Spec{Name: "m", Engine: EngineTracing}, Spec{Name: "m", Engine: EngineTracing, ProfilerSettings: ps}
		if a.Equal(&b) || b.Equal(&a) {
			t.Errorf("%s given: Equal to a mode without it", name)
		}
		if !b.Equal(&b) {
			t.Errorf("%s given: not Equal to itself", name)
		}
	}
}

// Each row's variable reaches the child under an engine that reads it (with
// the setting it needs), and is read somewhere in profiler/: a row whose
// variable nothing reads would be a setting that silently does nothing.
func TestEverySettingIsRead(t *testing.T) {
	var src strings.Builder
	files, _ := filepath.Glob("../../profiler/*")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || !(strings.HasSuffix(f, ".c") || strings.HasSuffix(f, ".h") || strings.HasSuffix(f, ".go")) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	for i := range Fields {
		f := &Fields[i]
		if !strings.Contains(src.String(), `"`+f.Env+`"`) && !strings.Contains(src.String(), `modes.EnvVar("`+f.Key()+`")`) {
			t.Errorf("%s: %s is read nowhere in profiler/", f.Key(), f.Env)
		}
		var e Engine
		for _, c := range Engines {
			if f.Reads(c) {
				e = c
				break
			}
		}
		var ps ProfilerSettings
		for _, key := range []string{f.Needs, f.Key()} {
			if key == "" {
				continue
			}
			switch p := FieldNamed(key).Ptr(&ps).(type) {
			case *bool:
				*p = true
			case *int:
				*p = FieldNamed(key).Default().(int)
			case *Duration:
				*p = Duration(FieldNamed(key).Default().(time.Duration))
			case *[]string:
				*p = []string{"X"}
			}
		}
		if env := strings.Join(ps.Env(e), " "); !strings.Contains(env, f.Env+"=") {
			t.Errorf("%s under %s: env %q lacks %s", f.Key(), e, env, f.Env)
		}
		if got := Inherit(ProfilerSettings{}, ps); !reflect.DeepEqual(got, ps) {
			t.Errorf("%s: a mode leaving it out inherits %+v, want %+v", f.Key(), got, ps)
		}
		for _, other := range Engines {
			if !f.Reads(other) && strings.Contains(strings.Join(ps.Env(other), " "), f.Env+"=") {
				t.Errorf("%s reaches %s, which does not read it", f.Key(), other)
			}
		}
	}
}
