/**
 * The sample catalogue `npm run seed` loads: public-domain classics from eleven centuries, several
 * authors with many books (so an author filter and a page walk show something) and names in their
 * own scripts. Titles, authors and years are the works' own; the ISBNs are made up (a 978-1-50
 * range with valid ISBN-13 check digits), one per book, so no two books share one.
 */
export interface SampleBook {
  title: string;
  author: string;
  isbn: string;
  publicationYear: number;
}

const WORKS: readonly (readonly [title: string, author: string, year: number])[] = [
  ['Oliver Twist', 'Charles Dickens', 1838],
  ['A Christmas Carol', 'Charles Dickens', 1843],
  ['David Copperfield', 'Charles Dickens', 1850],
  ['Bleak House', 'Charles Dickens', 1853],
  ['Hard Times', 'Charles Dickens', 1854],
  ['A Tale of Two Cities', 'Charles Dickens', 1859],
  ['Great Expectations', 'Charles Dickens', 1861],
  ['Sense and Sensibility', 'Jane Austen', 1811],
  ['Pride and Prejudice', 'Jane Austen', 1813],
  ['Mansfield Park', 'Jane Austen', 1814],
  ['Emma', 'Jane Austen', 1815],
  ['Northanger Abbey', 'Jane Austen', 1817],
  ['Persuasion', 'Jane Austen', 1817],
  ['Бедные люди', 'Фёдор Достоевский', 1846],
  ['Записки из подполья', 'Фёдор Достоевский', 1864],
  ['Преступление и наказание', 'Фёдор Достоевский', 1866],
  ['Идиот', 'Фёдор Достоевский', 1869],
  ['Братья Карамазовы', 'Фёдор Достоевский', 1880],
  ['Voyage au centre de la Terre', 'Jules Verne', 1864],
  ['De la Terre à la Lune', 'Jules Verne', 1865],
  ['Vingt mille lieues sous les mers', 'Jules Verne', 1870],
  ['Le Tour du monde en quatre-vingts jours', 'Jules Verne', 1872],
  ["L'Île mystérieuse", 'Jules Verne', 1875],
  ['Romeo and Juliet', 'William Shakespeare', 1597],
  ['Hamlet', 'William Shakespeare', 1603],
  ['Othello', 'William Shakespeare', 1622],
  ['King Lear', 'William Shakespeare', 1608],
  ['The Tempest', 'William Shakespeare', 1623],
  ['Thérèse Raquin', 'Émile Zola', 1867],
  ["L'Assommoir", 'Émile Zola', 1877],
  ['Nana', 'Émile Zola', 1880],
  ['Germinal', 'Émile Zola', 1885],
  ['源氏物語', '紫式部', 1008],
  ['Divina Commedia', 'Dante Alighieri', 1320],
  ['Decameron', 'Giovanni Boccaccio', 1353],
  ['The Canterbury Tales', 'Geoffrey Chaucer', 1400],
  ['Le Morte d’Arthur', 'Thomas Malory', 1485],
  ['Utopia', 'Thomas More', 1516],
  ['Don Quijote de la Mancha', 'Miguel de Cervantes Saavedra', 1605],
  ['Paradise Lost', 'John Milton', 1667],
  ['Le Misanthrope', 'Molière', 1666],
  ['Robinson Crusoe', 'Daniel Defoe', 1719],
  ["Gulliver's Travels", 'Jonathan Swift', 1726],
  ['Candide', 'Voltaire', 1759],
  ['Die Leiden des jungen Werthers', 'Johann Wolfgang von Goethe', 1774],
  ['Faust', 'Johann Wolfgang von Goethe', 1808],
  ['Frankenstein', 'Mary Shelley', 1818],
  ['Евгений Онегин', 'Александр Пушкин', 1833],
  ['Le Père Goriot', 'Honoré de Balzac', 1835],
  ['Les Trois Mousquetaires', 'Alexandre Dumas', 1844],
  ['Wuthering Heights', 'Emily Brontë', 1847],
  ['Jane Eyre', 'Charlotte Brontë', 1847],
  ['Moby-Dick', 'Herman Melville', 1851],
  ['Madame Bovary', 'Gustave Flaubert', 1857],
  ['Les Misérables', 'Victor Hugo', 1862],
  ['Война и мир', 'Лев Толстой', 1869],
  ['Анна Каренина', 'Лев Толстой', 1878],
  ['Et dukkehjem', 'Henrik Ibsen', 1879],
  ['Adventures of Huckleberry Finn', 'Mark Twain', 1884],
  ['Nils Holgerssons underbara resa genom Sverige', 'Selma Lagerlöf', 1906],
  ['Dracula', 'Bram Stoker', 1897],
  ['Вишнёвый сад', 'Антон Чехов', 1904],
  ['Der Process', 'Franz Kafka', 1925],
  ['吾輩は猫である', '夏目漱石', 1905],
];

/** ISBN-13 check digit: weights 1 and 3 alternating, the total made a multiple of 10. */
const isbn13 = (twelveDigits: string): string => {
  const sum = [...twelveDigits].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return `${twelveDigits}${(10 - (sum % 10)) % 10}`;
};

const hyphenate = (isbn: string) =>
  `${isbn.slice(0, 3)}-${isbn.slice(3, 4)}-${isbn.slice(4, 6)}-${isbn.slice(6, 12)}-${isbn.slice(12)}`;

export const SAMPLE_BOOKS: readonly SampleBook[] = WORKS.map(([title, author, publicationYear], i) => ({
  title,
  author,
  isbn: hyphenate(isbn13(`978150${String(i + 1).padStart(6, '0')}`)),
  publicationYear,
}));
