function phrases(...lists: string[]): readonly string[] {
  return lists.flatMap((list) => list.split(',').map((phrase) => phrase.trim())).filter(Boolean);
}

/**
 * The words `matchYes` and `matchNo` know, in English and French, written folded (lower case,
 * no accents, no apostrophes: `d'accord` is `daccord`). Each list is a set of phrases; the
 * longest phrase that fits wins, so `no problem` reads as a yes and `of course not` as a no.
 */

/** Phrases that answer yes. */
export const yesPhrases = phrases(
  // English
  `yes, y, ya, yah, yea, yeah, yeh, yep, yup, yip, yas, aye, yessir, ok, okay, okey, okie,
   k, kay, sure, sure thing, of course, ofc, course, certainly, absolutely, definitely,
   indeed, affirmative, alright, all right, right, correct, thats right, thats correct,
   exactly, agreed, i agree, confirm, confirmed, i confirm, sounds good, sounds great,
   go ahead, go for it, why not, fine, perfect, great, excellent, deal, please do,
   no problem, no prob, no worries, not a problem, totally, you bet, works for me,
   that works, will do, i do, count me in, sign me up, lets do it, ill be there,
   i will be there, i will, i accept, accept, accepted`,
  // French
  `oui, ouais, ouai, ouaip, ouep, ouip, wi, ui, voui, si, oki, okidoki, daccord, dac, dak,
   ca marche, ca me va, ca roule, cest bon, cest ok, cest parfait, cest note, ok pour moi,
   bien sur, bien entendu, entendu, absolument, carrement, evidemment, evidement,
   exactement, exact, certainement, certes, tout a fait, volontiers, avec plaisir, parfait,
   super, genial, nickel, top, impeccable, je confirme, confirme, confirmee, je valide,
   valide, ca me convient, cela me convient, pas de souci, pas de soucis, pas de probleme,
   pas de pb, sans probleme, sans souci, aucun souci, aucun probleme, pourquoi pas, vas y,
   allez y, vasy, allezy, biensur, go, jaccepte, accepte, je serai la, je serai present, je serai presente,
   bien sur que oui, oui oui, o k, we, wai, present, presente, je viendrai, je serai present,
   avec grand plaisir, affirmatif, hell yes, hell yeah, id love to, with pleasure, cest bon pour moi`,
);

/** Phrases that answer no. */
export const noPhrases = phrases(
  // English
  `no, n, nope, nah, naw, nay, no way, not at all, never, negative, not really,
   not interested, not now, i decline, decline, i refuse, refuse, definitely not,
   certainly not, absolutely not, of course not, hell no, i cant, i cannot, cant make it,
   i cant make it, i wont, i will not, no way jose, not for me, im not interested,
   rather not, id rather not, no thanks, no thank you, nop, nope nope,
   not available, unavailable, im not available`,
  // French
  `non, nan, niet, nenni, pas du tout, jamais, absolument pas, certainement pas,
   surtout pas, bien sur que non, pas question, hors de question, pas vraiment,
   pas interesse, pas interessee, pas interesses, ca ne minteresse pas, ca minteresse pas,
   je refuse, refuse, refusee, pas maintenant, je ne peux pas, je peux pas, jpeux pas,
   je ne pourrai pas, je pourrai pas, impossible, pas possible, je ne viendrai pas,
   je viendrai pas, je ne serai pas la, je serai pas la, cest non, ce sera non, non merci,
   pas pour moi, negatif, je serai absent, je serai absente, pas dispo, pas disponible,
   indisponible, je ne suis pas disponible, je suis pas disponible, je suis pas dispo`,
);

/** Phrases that answer neither: the person does not know yet. */
export const unsurePhrases = phrases(
  `no idea, no clue, not sure, unsure, dunno, dont know, i dont know, idk, maybe, perhaps,
   not yet, i think so, i guess, je sais pas, je ne sais pas, sais pas, chais pas,
   jsais pas, jsp, aucune idee, pas sur, pas sure, peut etre, peutetre, pt etre, bof,
   on verra, je vais voir, a voir, je reflechis, pas encore, je sais plus, je ne sais plus,
   peut etre pas, never mind, nevermind, laisse tomber`,
);

/** Words that, after a yes, take it back or hedge it (`oui mais…`, `yes but…`, `ok pas…`). */
export const hedgePhrases = phrases(
  `mais, but, sauf, except, however, cependant, pourtant, par contre, though, although, not,
   pas, ne, n, never, jamais, dont, cant, wont, cannot, isnt, rien, plus, sinon, otherwise,
   unless, a moins`,
);

/** What may come before the answer: hesitations, greetings, thanks (`Bonjour, oui merci`). */
export const leadingPhrases = phrases(
  `ah, oh, eh, euh, heu, hum, hmm, hm, um, uh, bah, ben, bon, mais, alors, et bien, eh bien,
   well, so, yo, hey, hi, hello, hola, salut, coucou, bonjour, bonsoir, bjr, dear, madame,
   monsieur, mme, mr, dr, doctor, docteur, please, pls, plz, merci, merci beaucoup, merci bien, thanks,
   thank you, thx, ty, svp, stp, sil vous plait, sil te plait, good morning, good evening,
   good afternoon`,
);

/** Phrases that contain an answer word without being an answer (`not right now`). */
export const neutralPhrases = phrases(
  `right now, right away, tout de suite, super bien, cest bon, ca va, de rien, je vous en prie`,
);

/**
 * Short words that are an answer only on their own (with greetings, thanks or the same answer
 * again: `Y merci`, `si si`), since in a sentence they usually mean something else (`y a un
 * souci`, `si possible`, `we need to talk`, `right, I forgot`, `go to…`). Later in a message
 * they are ignored.
 */
export const answerAlone = new Set(
  phrases(`y, n, k, si, ui, wi, we, go, top, super, right, exact, course, fine, deal, great,
   valide, nan`),
);

/**
 * Real words one letter away from an answer word, never read as a typo of it (`note` is not
 * `nope`, `year` is not `yeah`), and words that squeeze to an answer (`noon` is not `non`).
 */
export const notTypos = new Set(
  phrases(`noon, naan, none, note, nose, node, year, yeas, sore, surf, conform`),
);

/**
 * Answer words a typo may stand for (see `matchYes`): one letter wrong, missing, extra or two
 * swapped, the first letter kept; for three-letter words only a swap (`yse`, `oiu`).
 */
export const typoTargets = {
  yes: phrases(
    `yes, oui, yeah, okay, ouais, sure, daccord, absolutely, absolument, certainly,
     certainement, carrement, evidemment, exactement, definitely, volontiers, parfait,
     perfect, confirme, confirm`,
  ),
  no: phrases(`non, nope, never, jamais`),
};

/** Emoji that answer yes or no on their own (skin tones allowed). */
export const yesEmoji = /\u{1F44D}|\u{1F44C}|\u2705|\u2714|\u2611|\u{1F197}/u;
export const noEmoji = /\u{1F44E}|\u274C|\u274E|\u2716|\u{1F6AB}|\u26D4|\u{1F645}/u;
