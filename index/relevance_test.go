package index

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// multilingual is a vault in eleven languages, written for the test; a
// note's language comes from its frontmatter, its folder or its text.
var multilingual = map[string]string{
	"en/Pinning notes.md":      "# Pinning notes\n\n## Claim\n\nPinned notes stay at the top of the list.\n\nYou can pin any note; the parameters are in the settings.\n",
	"en/Zettelkasten.md":       "# Zettelkasten\n\nA way of keeping notes, one idea per note.\n",
	"en/Linking.md":            "# Linking notes\n\n## Claim\n\nA zettelkasten grows by its links: zettelkasten notes link zettelkasten notes.\n",
	"fr/Épingler des notes.md": "# Épingler des notes\n\n## Claim\n\nOn peut épingler une note pour la garder en haut de la liste.\n\nLes paramètres de l'application sont dans les réglages, et les paramètres du coffre aussi.\n",
	"fr/Raccourcis.md":         "# Raccourcis clavier\n\nLes raccourcis clavier de l'éditeur sont dans les paramètres.\n",
	"de/Tastenkürzel.md":       "# Tastenkürzel\n\n## Claim\n\nDie Tastenkürzel für die Überschrift sind in den Einstellungen, und die Parameter auch.\n",
	"de/Überschriften.md":      "# Überschriften\n\nEine Überschrift beginnt mit einer Raute und ist für die Gliederung der Notiz.\n",
	"es/Anclar notas.md":       "# Anclar notas\n\n## Claim\n\nLas notas ancladas se quedan arriba de la lista, y los parámetros están en la configuración.\n",
	"es/Atajos.md":             "---\nlang: es\n---\n# Atajos\n\nLos atajos de teclado están en los ajustes de la aplicación.\n",
	"da/Indstillinger.md":      "# Indstillinger\n\nDu kan ændre parametre og indstillinger for din boks, og de er gemt i mappen.\n",
	"ja/注釈.md":                 "# 注釈\n\n## Claim\n\nノートに標注を付けることができます。標注は本文の横に表示されます。\n",
	"ja/リンク.md":                "# リンク\n\nノートの間にリンクを作成できます。内部リンクは角括弧で書きます。\n",
	"zh/标注.md":                 "# 标注\n\n## Claim\n\n你可以在笔记中添加标注。标注会显示在正文旁边。\n",
	"zh/链接.md":                 "# 链接\n\n你可以在笔记之间创建链接。内部链接使用方括号，也可以使用标签和注释。\n",
	"zh/双向.md":                 "# 双向\n\n双向的关系可以帮助你找到笔记。\n",
	"misc/Parameter tuning.md": "---\nlang: de\n---\n# Parameter\n\nDer Parameter bestimmt die Ausgabe; ein Parameter ist ein Wert.\n",
	"misc/Notes on notes.md":   "# Notes on notes\n\nThe settings of a vault and the parameters of a plugin are kept apart.\n",
	// Thai and Khmer write no spaces between words.
	"th/การค้นหา.md":     "# การค้นหา\n\n## Claim\n\nคุณสามารถค้นหาข้อความในบันทึกทั้งหมดได้\n",
	"th/การตั้งค่า.md":   "# การตั้งค่า\n\nเปิดการตั้งค่าเพื่อเปลี่ยนธีมของแอป\n",
	"th/ลิงก์.md":        "# ลิงก์\n\nสร้างลิงก์ระหว่างบันทึกด้วยวงเล็บเหลี่ยม\n",
	"km/ស្វែងរក.md":      "# ស្វែងរក\n\n## Claim\n\nអ្នកអាចស្វែងរកអត្ថបទនៅក្នុងកំណត់ចំណាំទាំងអស់។\n",
	"km/ការកំណត់.md":     "# ការកំណត់\n\nបើកការកំណត់ដើម្បីប្តូររូបរាង។\n",
	"misc/Thai words.md": "# Thai words\n\nThe Thai for search is ค้นหา, in a note written in English.\n",
	// Korean writes its particles onto the word: 보관소를 is 보관소 and
	// the object particle 를.
	"ko/시작.md": "# 시작\n\n보관소를 열었습니다. 메모를 작성합니다. API를 씁니다.\n",
	"ko/링크.md": "# 링크\n\n노트 사이에 링크를 만들 수 있습니다.\n",
	// Case, accents and the letters that do not decompose, for prefixes.
	"fr/Café.md":         "# Café\n\nUn café élégant, près de la gare, chez O’Reilly.\n",
	"de/Fußnoten.md":     "# Fußnoten\n\nEine Fußnote steht unten auf der Seite.\n",
	"ru/Заметки.md":      "# Заметки\n\nЁлка стоит в углу, и заметки можно закрепить.\n",
	"ru/Файли.md":        "# Файли\n\nЗавантаження файлів вашого сховища можна зробити тут.\n",
	"misc/Files.md":      "# Files\n\nThe word файлів in English text here, with the notes and the list.\n",
	"misc/Σημειώσεις.md": "# Σημειώσεις\n\nΟι σημειώσεις μένουν στην κορυφή.\n",
	"misc/Zażółć.md":     "# Zażółć\n\nZażółć gęślą jaźń.\n",
	"misc/Işık.md":       "# Işık\n\nBu notta ışık var.\n",
	"misc/Width.md":      "# Width\n\nThe code ＡＢＣ and the word ｶﾀｶﾅ, in a note written in English. #Widths\n",
	// Fullwidth digits, and ASCII ones a fullwidth query finds.
	"misc/Fullwidth digits.md": "# Fullwidth digits\n\nChapter ０１２ of the manual, and the droid Ｒ２Ｄ２.\n",
	"misc/Room.md":             "# Room\n\nThe meeting is in room 345 today.\n",
	// CJK and Hangul in notes read as another language: pairs by script.
	"misc/Korean words.md": "# Korean words\n\nThe Korean for the vault is 보관소를, with its particle, in a note written in English.\n",
	"misc/Han apart.md":    "# Han apart\n\nThe characters 标 and 注 stand apart here, in a note written in English.\n",
	"misc/Han together.md": "# Han together\n\nThe Chinese 标注系统 is written here, in a note written in English.\n",
	// Frontmatter text: aliases as the title, other text in prop:; not
	// numbers or dates.
	"misc/Props.md": "---\naliases: [Quokka handbook]\nstatus: evergreen\nsummary: A marsupial from Rottnest\nrating: 4711\ncreated: 2024-05-06\ntags: [wombat]\n---\n# Props\n\nNothing else here.\n",
	// Arabic: the article and the prefixes joined to it come off.
	"ar/الكتب.md": "# الكتب\n\nقرأت الكتاب في المكتبة، والكتاب الآخر كتبته بالقلم.\n",
	// Turkish: the suffix after an apostrophe comes off.
	"tr/Seyahat.md": "# Seyahat\n\nAnkara'da ve Paris'te bir hafta kaldık, ama çok yorulduk.\n",
	// Persian: the parts a zero-width non-joiner keeps apart are words.
	"fa/یادداشت.md": "# یادداشت\n\nاگر می\u200cخواهید یادداشت را پیدا کنید، این را بخوانید.\n",
	// Hebrew: the points fold; the prefixes stay (a leading * finds them).
	"he/ספרים.md": "# ספרים\n\nהַסֵּפֶר נמצא על השולחן.\n",
	// Romanian, Hungarian and Polish stem with the letters folding takes
	// off (ș, ö, ą): a word is found by another form of it, written with
	// its letters or without.
	"ro/Orașe.md":    "# Orașe\n\nÎn orașele mari, cărțile din biblioteca orașului sunt multe.\n",
	"hu/Házak.md":    "# Házak\n\nA házakban és a kertekben sok könyv van, és ez a könyvek helye.\n",
	"pl/Książki.md":  "# Książki\n\nW mieście jest biblioteka, a w bibliotece są książki i czasopisma dla nas.\n",
	"uk/Книги.md":    "# Книги\n\nУ бібліотеці є книги, і їх можна читати. Це наша бібліотека.\n",
	"nl/Bed.md":      "# Bed\n\nHet ziekenhuisbed staat in de kamer en de patiënt ligt er al.\n",
	"uk/Лист.md":     "# Лист\n\nЯ написав лист другові, і він відповів.\n",
	"id/Catatan.md":  "# Catatan\n\nSaya menulis catatan ini untuk mereka yang ingin membaca dengan cepat.\n",
	"cs/Poznámky.md": "# Poznámky\n\nPoznámky jsou v knihovně, a to je pro nás velmi dobré.\n",
	"el/Βιβλία.md":   "# Βιβλία\n\nΤΑ ΒΙΒΛΙΑ ΕΙΝΑΙ ΣΤΗ ΒΙΒΛΙΟΘΗΚΗ ΚΑΙ ΟΙ ΣΗΜΕΙΩΣΕΙΣ ΣΤΟ ΤΡΑΠΕΖΙ.\n",
}

func TestRelevance(t *testing.T) {
	v := testVault(t, multilingual)
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	if _, err := Update(context.Background(), v, opts, false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query string
		lead  []string // the first hits, in any order
		never []string
		none  bool // no note at all
	}{
		// Accents fold both ways.
		{query: "epingler", lead: []string{"fr/Épingler des notes.md"}},
		{query: "épingler", lead: []string{"fr/Épingler des notes.md"}},
		{query: "tastenkurzel", lead: []string{"de/Tastenkürzel.md"}},
		{query: "uberschrift", lead: []string{"de/Überschriften.md", "de/Tastenkürzel.md"}},
		// Plurals fold in their own language only.
		{query: "parametres", lead: []string{"fr/Épingler des notes.md", "fr/Raccourcis.md"}, never: []string{"da/Indstillinger.md", "en/Pinning notes.md"}},
		{query: "paramètres", lead: []string{"fr/Épingler des notes.md", "fr/Raccourcis.md"}, never: []string{"da/Indstillinger.md"}},
		{query: "parameters", lead: []string{"en/Pinning notes.md", "misc/Notes on notes.md"}, never: []string{"da/Indstillinger.md", "fr/Raccourcis.md"}},
		{query: "notas", lead: []string{"es/Anclar notas.md"}},
		{query: "atajos", lead: []string{"es/Atajos.md"}},
		// CJK: the word, not its characters.
		{query: "标注", lead: []string{"zh/标注.md"}, never: []string{"zh/链接.md", "zh/双向.md"}},
		{query: "双向链接", none: true},
		{query: "链接", lead: []string{"zh/链接.md"}, never: []string{"zh/标注.md"}},
		{query: "リンク", lead: []string{"ja/リンク.md"}, never: []string{"ja/注釈.md"}},
		{query: "標注", lead: []string{"ja/注釈.md"}},
		// Thai and Khmer: the word where its characters stand in a row, in
		// a Thai note or an English one, and nowhere else.
		{query: "ค้นหา", lead: []string{"th/การค้นหา.md", "misc/Thai words.md"}, never: []string{"th/การตั้งค่า.md", "th/ลิงก์.md"}},
		{query: "บันทึก", lead: []string{"th/การค้นหา.md", "th/ลิงก์.md"}, never: []string{"th/การตั้งค่า.md"}},
		{query: "ธีม", lead: []string{"th/การตั้งค่า.md"}, never: []string{"th/การค้นหา.md", "th/ลิงก์.md"}},
		{query: "การตั้งค่า", lead: []string{"th/การตั้งค่า.md"}, never: []string{"th/การค้นหา.md"}},
		{query: "ปฏิทิน", none: true},
		{query: "ស្វែងរក", lead: []string{"km/ស្វែងរក.md"}, never: []string{"km/ការកំណត់.md"}},
		{query: "កំណត់ចំណាំ", lead: []string{"km/ស្វែងរក.md"}, never: []string{"km/ការកំណត់.md"}},
		{query: "ការកំណត់", lead: []string{"km/ការកំណត់.md"}, never: []string{"km/ស្វែងរក.md"}},
		{query: "ប្រតិទិន", none: true},
		{query: "lang:th", lead: []string{"th/การค้นหา.md", "th/การตั้งค่า.md", "th/ลิงก์.md"}, never: []string{"km/ស្វែងរក.md", "misc/Thai words.md"}},
		// Korean: a word with its particle is found by the word, as a
		// phrase of its syllable pairs, and not by a word that shares a
		// syllable pair only.
		{query: "보관소", lead: []string{"ko/시작.md"}, never: []string{"ko/링크.md"}},
		{query: "메모", lead: []string{"ko/시작.md"}, never: []string{"ko/링크.md"}},
		{query: "열었", lead: []string{"ko/시작.md"}},
		{query: "작성", lead: []string{"ko/시작.md"}},
		{query: "보관소를", lead: []string{"ko/시작.md"}},
		{query: "링크", lead: []string{"ko/링크.md"}, never: []string{"ko/시작.md"}},
		{query: "보관함", none: true},
		{query: "api", lead: []string{"ko/시작.md"}},
		// Prefixes and wildcards fold as words do: case, accents, ß.
		{query: "Tasten*", lead: []string{"de/Tastenkürzel.md"}},
		{query: "Zettel*", lead: []string{"en/Zettelkasten.md", "en/Linking.md"}},
		{query: "Caf*", lead: []string{"fr/Café.md"}},
		{query: "ÉLÉG*", lead: []string{"fr/Café.md"}},
		{query: "élég*", lead: []string{"fr/Café.md"}},
		{query: "ÉPING*", lead: []string{"fr/Épingler des notes.md"}},
		{query: "fuß*", lead: []string{"de/Fußnoten.md"}},
		{query: "FUSSN?TE*", lead: []string{"de/Fußnoten.md"}},
		{query: "Fußnote*", lead: []string{"de/Fußnoten.md"}},
		{query: "paramètres*", lead: []string{"fr/Épingler des notes.md", "fr/Raccourcis.md"}},
		{query: "Зам*", lead: []string{"ru/Заметки.md"}},
		{query: "Ёлк*", lead: []string{"ru/Заметки.md"}},
		{query: "ΣΗΜ*", lead: []string{"misc/Σημειώσεις.md"}},
		{query: "Zaż*", lead: []string{"misc/Zażółć.md"}},
		{query: "title:Zett*", lead: []string{"en/Zettelkasten.md"}},
		{query: "tag:WIDTH*", lead: []string{"misc/Width.md"}},
		// The typographic apostrophe, ё, fullwidth and halfwidth forms and
		// the Turkish dotless i fold.
		{query: "o'reilly", lead: []string{"fr/Café.md"}},
		// A word a note in another language holds too is still read as
		// Russian writes it: й is not folded there.
		{query: "файлів", lead: []string{"ru/Файли.md", "misc/Files.md"}},
		{query: "елка", lead: []string{"ru/Заметки.md"}},
		{query: "ЕЛКА", lead: []string{"ru/Заметки.md"}},
		{query: "abc", lead: []string{"misc/Width.md"}},
		{query: "カタカナ", lead: []string{"misc/Width.md"}},
		{query: "isik", lead: []string{"misc/Işık.md"}},
		{query: "IŞIK", lead: []string{"misc/Işık.md"}},
		// Fullwidth digits fold to ASCII, before words are split: either
		// form finds either.
		{query: "012", lead: []string{"misc/Fullwidth digits.md"}},
		{query: "０１２", lead: []string{"misc/Fullwidth digits.md"}},
		{query: "r2d2", lead: []string{"misc/Fullwidth digits.md"}},
		{query: "３４５", lead: []string{"misc/Room.md"}},
		// Hangul and Han pair by script in a note read as English.
		{query: "보관소", lead: []string{"misc/Korean words.md", "ko/시작.md"}},
		{query: "标注", lead: []string{"zh/标注.md", "misc/Han together.md"}, never: []string{"misc/Han apart.md"}},
		// Frontmatter: text values and list items in prop: and every word
		// search; aliases as the title; numbers and dates not as words.
		{query: "marsupial", lead: []string{"misc/Props.md"}},
		{query: "prop:evergreen", lead: []string{"misc/Props.md"}},
		{query: "wombat", lead: []string{"misc/Props.md"}},
		{query: "title:quokka", lead: []string{"misc/Props.md"}},
		{query: "Quokka handbook", lead: []string{"misc/Props.md"}},
		{query: "4711", none: true},
		{query: "prop:2024", none: true},
		{query: "prop:notes", none: true},
		// Arabic: the article and its prefixes; Turkish apostrophes;
		// Hebrew points.
		{query: "كتاب", lead: []string{"ar/الكتب.md"}},
		{query: "قلم", lead: []string{"ar/الكتب.md"}},
		{query: "خواهید", lead: []string{"fa/یادداشت.md"}},
		{query: "Paris", lead: []string{"tr/Seyahat.md"}},
		{query: "ankara", lead: []string{"tr/Seyahat.md"}},
		{query: "הספר", lead: []string{"he/ספרים.md"}},
		{query: "*ספר", lead: []string{"he/ספרים.md"}},
		// Romanian, Hungarian, Polish: another form of the word, with or
		// without its letters.
		{query: "orașul", lead: []string{"ro/Orașe.md"}},
		{query: "orasul", lead: []string{"ro/Orașe.md"}},
		{query: "carte", lead: []string{"ro/Orașe.md"}},
		{query: "házban", lead: []string{"hu/Házak.md"}},
		{query: "ház", lead: []string{"hu/Házak.md"}},
		{query: "könyvben", lead: []string{"hu/Házak.md"}},
		{query: "książka", lead: []string{"pl/Książki.md"}},
		{query: "bibliotekach", lead: []string{"pl/Książki.md"}},
		{query: "ksiazki", lead: []string{"pl/Książki.md"}},
		{query: "ksiazka", lead: []string{"pl/Książki.md"}},
		// Compounds are not split: the head is a prefix.
		{query: "ziekenhuis*", lead: []string{"nl/Bed.md"}},
		{query: "ziekenhuis", none: true},
		{query: "książ*", lead: []string{"pl/Książki.md"}},
		// Ukrainian (ru/Файли.md is Ukrainian too, in a folder that says
		// otherwise) is not stemmed as Russian: a word is found as written,
		// and the Russian stemmer does not join it to another.
		{query: "бібліотека", lead: []string{"uk/Книги.md"}},
		{query: "листя", none: true}, // foliage, not a letter (лист)
		{query: "lang:uk", lead: []string{"uk/Книги.md", "ru/Файли.md", "uk/Лист.md"}, never: []string{"ru/Заметки.md"}},
		{query: "lang:id catatan", lead: []string{"id/Catatan.md"}},
		{query: "lang:cs poznamky", lead: []string{"cs/Poznámky.md"}},
		// Greek: the final sigma of a word in capitals.
		{query: "σημειώσεις", lead: []string{"el/Βιβλία.md", "misc/Σημειώσεις.md"}},
		{query: "lang:el βιβλια", lead: []string{"el/Βιβλία.md"}},
		// Titles: an exact title leads.
		{query: "zettelkasten", lead: []string{"en/Zettelkasten.md"}},
		{query: "Parameter", lead: []string{"misc/Parameter tuning.md"}},
		// lang: names the language.
		{query: "lang:de parameter", lead: []string{"misc/Parameter tuning.md", "de/Tastenkürzel.md"}, never: []string{"en/Pinning notes.md"}},
		{query: "lang:fr", lead: []string{"fr/Raccourcis.md", "fr/Épingler des notes.md"}, never: []string{"en/Zettelkasten.md"}},
	} {
		res, err := Search(context.Background(), v, opts, Request{Query: tc.query, Limit: 20, MaxUpdate: 100})
		if err != nil {
			t.Errorf("%q: %v", tc.query, err)
			continue
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.Path)
		}
		if tc.none {
			if len(got) != 0 {
				t.Errorf("%q = %q, want no note", tc.query, got)
			}
			continue
		}
		if len(got) < len(tc.lead) {
			t.Errorf("%q = %q, want %q first", tc.query, got, tc.lead)
			continue
		}
		first := slices.Clone(got[:len(tc.lead)])
		slices.Sort(first)
		want := slices.Clone(tc.lead)
		slices.Sort(want)
		if !slices.Equal(first, want) {
			t.Errorf("%q = %q, want %q first", tc.query, got, tc.lead)
		}
		for _, n := range tc.never {
			if slices.Contains(got, n) {
				t.Errorf("%q = %q: has %s", tc.query, got, n)
			}
		}
	}
}

func TestDetectLang(t *testing.T) {
	for text, want := range map[string]string{
		"Pinned notes stay at the top of the list, and the settings are kept.":             "en",
		"On peut épingler une note pour la garder en haut de la liste.":                    "fr",
		"Die Tastenkürzel für die Überschrift sind in den Einstellungen.":                  "de",
		"Las notas ancladas se quedan arriba de la lista y en la configuración.":           "es",
		"ノートに標注を付けることができます。":                                                               "ja",
		"你可以在笔记中添加标注。":                                                                     "zh",
		"노트에 주석을 추가할 수 있습니다.":                                                              "ko",
		"Заметки можно закрепить в начале списка.":                                         "ru",
		"คุณสามารถค้นหาข้อความในบันทึกทั้งหมดได้":                                          "th",
		"អ្នកអាចស្វែងរកអត្ថបទនៅក្នុងកំណត់ចំណាំទាំងអស់។":                                    "km",
		"The Thai for search is ค้นหา, in a note written in English.":                      "en",
		"قرأت الكتاب في المكتبة، والكتاب الآخر كتبته بالقلم.":                              "ar",
		"این یک یادداشت است که می\u200cتوانید آن را پیدا کنید.":                            "fa",
		"הספר נמצא על השולחן.":                                                             "he",
		"Bu not için bir örnek ve daha fazlası var, ama çok değil.":                        "tr",
		"În orașele mari, cărțile din biblioteca orașului sunt multe și sunt ale noastre.": "ro",
		"A házakban és a kertekben sok könyv van, és ez a könyvek helye.":                  "hu",
		"W mieście jest biblioteka, a w bibliotece są książki i czasopisma dla nas.":       "pl",
		"У бібліотеці є книги, і їх можна читати. Це наша бібліотека.":                     "uk",
		"Заметки можно закрепить, и это то, что нужно.":                                    "ru",
		"Saya menulis catatan ini untuk mereka yang ingin membaca dengan cepat.":           "id",
		"Poznámky jsou v knihovně, a to je pro nás velmi dobré, když jsou tam.":            "cs",
		"Τα βιβλία είναι στη βιβλιοθήκη και οι σημειώσεις στο τραπέζι.":                    "el",
		"Книгата е на масата, а тетрадките са в чантата. Това са моите неща.":              "bg",
		"Объект создан.": "ru",
		"Књига је на столу, а свеске су у торби. Ово су моје ствари.":                  "sr",
		"Knjiga je na stolu, a bilježnice su u torbi. Ovo su moje stvari i to je sve.": "hr",
		"ok": "en",
	} {
		if got := detectLang(text); got != want {
			t.Errorf("detectLang(%q) = %s, want %s", text, got, want)
		}
	}
}

// Macedonian writes ј љ њ џ as Serbian does, and ѓ ќ ѕ, which Serbian
// does not: zk has no analysis of it, and does not read it as Serbian.
func TestDetectLangNotSerbian(t *testing.T) {
	mk := "Јас сум тука со њив. Ова е нивната книга, а тие се мојата куќа и јазик."
	if got := detectLang(mk); got == "sr" {
		t.Errorf("detectLang(%q) = sr", mk)
	}
}

// A note's language: its frontmatter, else its folder's (longest glob
// first), else its text. A new folder map rebuilds the index once.
func TestNoteLang(t *testing.T) {
	folders := newLangFolders(map[string]string{"fr/**": "fr", "fr/en/**": "English", "jp/**": "ja-JP"})
	for _, tc := range []struct{ path, src, want string }{
		{"fr/a.md", "# A\n\nParameters.\n", "fr"},
		{"fr/en/a.md", "# A\n\nParamètres.\n", "en"},
		{"fr/b.md", "---\nlang: de\n---\n# B\n\nx\n", "de"},
		{"fr/c.md", "---\nlanguage: Klingon\n---\n# C\n\nx\n", langOther},
		{"jp/d.md", "# D\n\nx\n", "ja"},
		{"e.md", "# E\n\nLes notes et les paramètres de la liste sont dans le coffre.\n", "fr"},
		{"f.md", "# F\n\nok\n", "en"},
	} {
		n := vault.NewParser().Parse(tc.path, []byte(tc.src))
		if got := noteLang(n, splitText(n), folders); got != tc.want {
			t.Errorf("noteLang(%s) = %s, want %s", tc.path, got, tc.want)
		}
	}

	v := testVault(t, map[string]string{"fr/a.md": "# A\n\nLes paramètres.\n"})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx"), Languages: map[string]string{"fr/**": "fr"}}
	ctx := context.Background()
	for i, want := range []string{"", "", "the folder languages changed (languages in the config)"} {
		if i == 2 {
			opts.Languages = map[string]string{"fr/**": "en"}
		}
		st, err := Update(ctx, v, opts, false)
		if err != nil || st.Built != (i != 1) || st.Rebuilt != want {
			t.Fatalf("update %d = %+v, %v; want built %v, %q", i, st, err, i != 1, want)
		}
	}
}
