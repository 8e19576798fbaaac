package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZDump(t *testing.T) {
	if os.Getenv("DUMP") == "" {
		t.Skip()
	}
	var w, h int
	fmt.Sscanf(os.Getenv("DUMP"), "%dx%d", &w, &h)
	keys := strings.Fields(os.Getenv("KEYS"))
	m := fixtureModel(4, 6, 200, Options{NoColor: true})
	for s := range numScreens {
		if sc := os.Getenv("SCREEN"); sc != "" && sc != fmt.Sprint(int(s)+1) {
			continue
		}
		out := screenText(t, m, s, w, h, keys...)
		fmt.Println(out)
	}
}
