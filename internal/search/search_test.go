package search

import (
	"slices"
	"testing"
)

func TestTokens(t *testing.T) {
	got := Tokens("明天北京天气？Weather API，ＡＰＩ v2")
	want := []string{"明", "明天", "天", "天北", "北", "北京", "京", "京天", "天", "天气", "气", "weather", "api", "api", "v2", "v", "2"}
	if !slices.Equal(got, want) {
		t.Fatalf("Tokens = %q\nwant %q", got, want)
	}
	if got := Tokens("東京タワー 서울"); !slices.Contains(got, "東京") || !slices.Contains(got, "タワ") || !slices.Contains(got, "서울") {
		t.Fatalf("CJK scripts: %q", got)
	}
}

func TestChineseSearchRanks(t *testing.T) {
	x := NewIndex()
	x.Add("weather", "天气预报：明天北京晴，气温二十五度。")
	x.Add("train", "从北京到上海的高铁时刻表")
	x.Add("cat", "猫喜欢晒太阳，也喜欢吃鱼。")
	x.Add("en", "The weather API returns a forecast for a city.")
	cases := map[string]string{
		"北京天气":          "weather",
		"预报":            "weather",
		"高铁":            "train",
		"猫":             "cat",
		"weather api":   "en",
		"Forecast CITY": "en",
	}
	for q, want := range cases {
		hits := x.Search(q, 3)
		if len(hits) == 0 || hits[0].ID != want {
			t.Errorf("Search(%q) = %v, want %s first", q, hits, want)
		}
	}
	if hits := x.Search("火星", 3); len(hits) != 0 {
		t.Errorf("unrelated query found %v", hits)
	}
	x.Remove("weather")
	if hits := x.Search("天气预报", 3); len(hits) != 0 {
		t.Errorf("removed document found: %v", hits)
	}
	x.Add("cat", "狗喜欢散步")
	if hits := x.Search("猫", 3); len(hits) != 0 {
		t.Errorf("replaced text still found: %v", hits)
	}
	if x.Len() != 3 {
		t.Errorf("Len = %d", x.Len())
	}
}

func FuzzIndex(f *testing.F) {
	f.Add("天气预报", "天气", "北京上海")
	f.Fuzz(func(t *testing.T, a, q, b string) {
		x := NewIndex()
		x.Add("a", a)
		x.Add("b", b)
		for _, h := range x.Search(q, 5) {
			if h.Score <= 0 || (h.ID != "a" && h.ID != "b") {
				t.Fatalf("hit %v", h)
			}
		}
		x.Remove("a")
		x.Remove("b")
		if x.Len() != 0 || len(x.mem) != 0 || x.total != 0 {
			t.Fatalf("index not empty after removing all: %d %d %d", x.Len(), len(x.mem), x.total)
		}
		// Replacing keeps one copy.
		x.Add("a", a)
		x.Add("a", b)
		x.Add("b", a)
		if x.Len() != 2 || len(x.num) != 2 {
			t.Fatalf("after re-adding: %d live, %d ids", x.Len(), len(x.num))
		}
		if hits := x.Search(b, 5); len(Tokens(b)) > 0 && (len(hits) == 0 || hits[0].Score <= 0) {
			t.Fatalf("text of a not found: %v", hits)
		}
	})
}

// BenchmarkSearch indexes 2,000 short Chinese and English documents and
// searches them.
func BenchmarkSearch(b *testing.B) {
	subjects := []string{"北京", "上海", "杭州", "天气", "高铁", "会议", "预算", "猫", "咖啡", "路由器", "weather", "budget", "train"}
	verbs := []string{"明天", "讨论", "喜欢", "查询", "预订", "更新", "forecast", "meeting"}
	x := NewIndex()
	for i := 0; i < 2000; i++ {
		s := subjects[i%len(subjects)] + verbs[i%len(verbs)] + subjects[(i*7)%len(subjects)] + "，第" + string(rune('0'+i%10)) + "条记录。"
		x.Add(string(rune(i)), s)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(x.Search("明天北京天气预报", 5)) == 0 {
			b.Fatal("nothing found")
		}
	}
}

func TestMetaTagsAndFilter(t *testing.T) {
	x := NewIndex()
	a, b := x.Tag("k\x00global\x00"), x.Tag("k\x00chat:qq/1\x00plugA")
	if a == 0 || b == 0 || a == b || x.Tag("k\x00global\x00") != a || x.Label(b) != "k\x00chat:qq/1\x00plugA" || x.Label(0) != "" {
		t.Fatalf("tags %d %d, label %q", a, b, x.Label(b))
	}
	x.Put("k:one", "北京天气", Meta{Tag: a, Stamp: 7})
	x.Put("k:two", "北京天气预报", Meta{Tag: b, Stamp: 9})
	x.Put("d:three", "北京", Meta{Tag: a})
	if m, ok := x.Meta("k:two"); !ok || m.Stamp != 9 || m.Tag != b {
		t.Fatalf("Meta = %+v %v", m, ok)
	}
	hits := x.SearchFilter("北京天气", 10, func(m Meta) bool { return m.Tag == a })
	if len(hits) != 2 || hits[0].ID != "k:one" {
		t.Fatalf("filtered hits %v", hits)
	}
	var ids []string
	x.Each("k:", func(id string, _ Meta) bool { ids = append(ids, id); return true })
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"k:one", "k:two"}) {
		t.Fatalf("Each = %v", ids)
	}
}
