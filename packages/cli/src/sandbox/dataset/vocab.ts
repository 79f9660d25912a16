/*
 * Word lists for synthetic names. Company names are compounds of invented stems and trade words, so
 * they look Estonian without copying any registered company. People get common first names and
 * surnames combined at random with generated personal codes.
 */

export const stemA = [
  'Kase', 'Tamme', 'Lepa', 'Pihla', 'Kuuse', 'Vahtra', 'Saare', 'Rebase', 'Karu', 'Hundi', 'Kure', 'Luige', 'Kivi',
  'Liiva', 'Mere', 'Järve', 'Kaera', 'Rukki', 'Männi', 'Haava', 'Sõstra', 'Vilja', 'Kanarbiku', 'Sarapuu', 'Toome',
  'Pärna', 'Kadaka', 'Nõmme', 'Raba', 'Sambla', 'Tuule', 'Päikese', 'Vikerkaare', 'Koidu', 'Hämariku', 'Põhja', 'Lõuna',
  'Ida', 'Lääne', 'Kalju', 'Lumi', 'Jõe', 'Allika', 'Kose', 'Tähe', 'Kulla', 'Hõbe', 'Vaskse', 'Raua', 'Klaasi',
];
export const stemB = [
  'mäe', 'välja', 'soo', 'metsa', 'küla', 'nurme', 'ranna', 'aru', 'oru', 'põllu', 'kalda', 'salu', 'lahe', 'tee',
  'vere', 'kõnnu', 'niidu', 'lepiku', 'kivi', 'sillu', 'vainu', 'talu', 'veski', 'koja', 'õue', 'lauka',
];
export const stemC = ['', '', '', '', 'ste', 'mõisa', 'pära', 'tagu', 'otsa', 'kandi'];

/** Trade words; "Ehitus" is frequent on purpose: the fixture name with more than 200 search hits. */
export const tradeWords: readonly [string, number][] = [
  ['Ehitus', 16], ['Kinnisvara', 6], ['Consulting', 5], ['Grupp', 5], ['Invest', 6], ['Teenused', 5], ['Auto', 4],
  ['Trans', 4], ['Puit', 3], ['Metall', 3], ['IT', 4], ['Logistika', 3], ['Haldus', 4], ['Disain', 3], ['Tarkvara', 3],
  ['Kaubandus', 4], ['Toit', 2], ['Energia', 2], ['Agro', 2], ['Meedia', 2], ['Tervis', 2], ['Ilusalong', 1], ['Holding', 3],
  ['Partners', 2], ['Solutions', 2], ['Tehnika', 3], ['Elekter', 2], ['Sisustus', 2], ['Puhastus', 2], ['Turva', 1],
];

export const firstNamesMale = [
  'Andres', 'Jaan', 'Peeter', 'Toomas', 'Mart', 'Margus', 'Tarmo', 'Rein', 'Urmas', 'Priit', 'Indrek', 'Raivo', 'Tõnu',
  'Aivar', 'Kristjan', 'Marko', 'Siim', 'Rasmus', 'Karl', 'Martin', 'Sergei', 'Aleksandr', 'Dmitri', 'Tõnis', 'Kalev',
  'Lauri', 'Madis', 'Ott', 'Kaspar', 'Hendrik', 'Janek', 'Erki', 'Veiko', 'Meelis', 'Ants',
];
export const firstNamesFemale = [
  'Kadri', 'Triin', 'Kristiina', 'Maarja', 'Liis', 'Kersti', 'Tiina', 'Anne', 'Mari', 'Piret', 'Merike', 'Helen',
  'Katrin', 'Eve', 'Sirje', 'Anu', 'Reet', 'Laura', 'Grete', 'Elena', 'Olga', 'Tatjana', 'Marina', 'Kai', 'Pille',
  'Ülle', 'Evelin', 'Kätlin', 'Liina', 'Heli',
];
export const lastNames = [
  'Tamm', 'Saar', 'Sepp', 'Mägi', 'Kask', 'Kukk', 'Rebane', 'Ilves', 'Pärn', 'Koppel', 'Lepik', 'Kuusk', 'Oja', 'Kallas',
  'Luik', 'Raud', 'Vaher', 'Kivi', 'Lill', 'Põder', 'Karu', 'Teder', 'Kangur', 'Lõhmus', 'Mets', 'Kõiv', 'Jõgi',
  'Vares', 'Org', 'Laur', 'Ivanov', 'Petrov', 'Smirnov', 'Kuznetsov', 'Vassiljev', 'Männik', 'Roos', 'Järv', 'Sild',
  'Hunt', 'Nurm', 'Unt', 'Aavik', 'Laas', 'Toom', 'Sarapuu', 'Kaasik', 'Paju', 'Pihlak', 'Randmaa',
];

export const foreignSuffixes: readonly [string, string][] = [
  ['AB', 'SE'], ['Oy', 'FI'], ['GmbH', 'DE'], ['Ltd', 'GB'], ['SIA', 'LV'], ['UAB', 'LT'], ['AS', 'NO'], ['ApS', 'DK'], ['B.V.', 'NL'], ['Sp. z o.o.', 'PL'],
];
export const foreignStems = ['Nordvik', 'Baltora', 'Helmark', 'Vistula', 'Eastline', 'Fjordan', 'Rigant', 'Kauno', 'Alderhaven', 'Brisko', 'Tallow', 'Sundberg'];

/** Cities per county with the first digit of their postal codes (src/reference/estonian-registry.md). */
export const places: Record<string, readonly [string, string][]> = {
  'Harju maakond': [['Tallinn', '1'], ['Tallinn', '1'], ['Tallinn', '1'], ['Maardu', '7'], ['Keila', '7'], ['Saue', '7'], ['Viimsi vald', '7']],
  'Hiiu maakond': [['Kärdla', '9']],
  'Ida-Viru maakond': [['Narva', '2'], ['Kohtla-Järve', '3'], ['Jõhvi', '4'], ['Sillamäe', '4']],
  'Jõgeva maakond': [['Jõgeva', '4'], ['Põltsamaa', '4']],
  'Järva maakond': [['Paide', '7'], ['Türi', '7']],
  'Lääne maakond': [['Haapsalu', '9']],
  'Lääne-Viru maakond': [['Rakvere', '4'], ['Tapa', '4']],
  'Põlva maakond': [['Põlva', '6']],
  'Pärnu maakond': [['Pärnu', '8'], ['Sindi', '8']],
  'Rapla maakond': [['Rapla', '7']],
  'Saare maakond': [['Kuressaare', '9']],
  'Tartu maakond': [['Tartu', '5'], ['Tartu', '5'], ['Elva', '6']],
  'Valga maakond': [['Valga', '6'], ['Tõrva', '6']],
  'Viljandi maakond': [['Viljandi', '7']],
  'Võru maakond': [['Võru', '6']],
};
/** Relative number of companies per county (Harju and Tartu dominate, as in the register). */
export const countyWeights = [50, 1, 6, 2, 2, 2, 4, 2, 8, 2, 3, 12, 2, 3, 2];

export const streets = [
  'Pikk', 'Lai', 'Tartu mnt', 'Pärnu mnt', 'Narva mnt', 'Kooli', 'Vabriku', 'Jaama', 'Sadama', 'Aia', 'Kase', 'Metsa',
  'Põik', 'Turu', 'Pargi', 'Veski', 'Tööstuse', 'Laki', 'Mustamäe tee', 'Järvevana tee', 'Ringi', 'Lossi', 'Rüütli',
];

export const einvoiceOperators = ['Omniva', 'Telema', 'Finbite', 'Unifiedpost', 'Fitek', 'RIK e-arveldaja'];
export const bailiffs = ['Kohtutäitur Mari Kask', 'Kohtutäitur Jaan Lepik', 'Kohtutäitur Olga Petrova', 'Kohtutäitur Ants Org'];
export const judges = ['Kai Lill', 'Peeter Mets', 'Merike Vares', 'Rein Kuusk', 'Tiina Nurm', 'Andres Laas'];
