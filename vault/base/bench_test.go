package base

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkHostileBase: the cost of a base grows linearly with its bytes
// (compare ns/op across sizes: ×4 bytes should be ×4 time), whatever
// shape it takes: many filters, many formulas each used, one long
// expression per formula.
//
//	go test ./vault/base -run '^$' -bench HostileBase -benchtime 3x
func BenchmarkHostileBase(b *testing.B) {
	s := loadTestVault(b)
	shapes := map[string]func(n int) string{
		"filters": func(n int) string {
			var sb strings.Builder
			sb.WriteString("filters:\n  and:\n")
			for sb.Len() < n {
				sb.WriteString("    - 'price > 1 || file.hasTag(\"x\")'\n")
			}
			return sb.String()
		},
		"formulas": func(n int) string {
			var sb, order strings.Builder
			sb.WriteString("formulas:\n")
			for i := 0; sb.Len()+order.Len() < n; i++ {
				fmt.Fprintf(&sb, "  f%d: '(price * %d).toFixed(2) + file.name'\n", i, i)
				fmt.Fprintf(&order, "formula.f%d, ", i)
			}
			return sb.String() + "views:\n  - type: table\n    order: [" + order.String() + "file.name]\n"
		},
		"long-expressions": func(n int) string {
			var sb strings.Builder
			sb.WriteString("formulas:\n")
			for i := 0; sb.Len() < n; i++ {
				fmt.Fprintf(&sb, "  f%d: '%s1'\n", i, strings.Repeat("price + ", 1500))
			}
			return sb.String() + "views:\n  - type: table\n    order: [formula.f0, formula.f1, formula.f2]\n"
		},
	}
	for _, shape := range []string{"filters", "formulas", "long-expressions"} {
		for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
			src := []byte(shapes[shape](size - size/16))
			b.Run(fmt.Sprintf("%s/%dKiB", shape, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				for b.Loop() {
					base, err := Parse(src)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := Evaluate(context.Background(), s, base, Options{Now: testNow}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
