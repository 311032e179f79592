/** One cluster of near-duplicate texts per seed, for the several-sidecar tests. */

/** A seeded generator of plain Chinese text: different seeds give unrelated texts. */
export function baseText(seed: number, length = 320): string {
  const chars = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理世";
  let x = seed * 2654435761 + 1;
  let out = "";
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out += chars[x % chars.length];
    if (i % 23 === 22) out += "。";
  }
  return out;
}

/** n near-duplicates of one base text: one character changed and a numbered tag. */
export function nearDuplicates(seed: number, n: number): string[] {
  const base = baseText(seed);
  return Array.from({ length: n }, (_, i) => {
    const at = 40 + ((i * 7) % 200);
    return `${base.slice(0, at)}另${base.slice(at + 1)} #${i}`;
  });
}
