/**
 * English names (as GeoLite2 and DB-IP write them) of subdivisions that the ISO
 * 3166-2 list in `iso-3166-2` carries under local or outdated names, chosen from
 * the mismatches seen most on the bundled GeoLite2 data. Codes are current
 * ISO 3166-2 codes without the country prefix; these win over the ISO list.
 * Administrative words ("County", "Governorate", "Region", "State of", "-do") are
 * folded away before matching, so they are not repeated here.
 */
export const SUBDIVISION_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AE: { Dubai: "DU", "Abu Dhabi": "AZ", Sharjah: "SH", Ajman: "AJ", "Ras al-Khaimah": "RK", Fujairah: "FU", "Umm al-Quwain": "UQ" },
  AT: { Burgenland: "1", Carinthia: "2", "Lower Austria": "3", "Upper Austria": "4", Salzburg: "5", Styria: "6", Tyrol: "7", Vorarlberg: "8", Vienna: "9" },
  BE: { "Brussels Capital": "BRU", Flanders: "VLG", Wallonia: "WAL" },
  BG: { "Sofia-Capital": "22" },
  BR: { "Federal District": "DF" },
  BY: { "Minsk City": "HM" },
  CL: { "Santiago Metropolitan": "RM" },
  CO: { "Bogota D.C.": "DC" },
  CZ: {
    Prague: "10", "Central Bohemia": "20", "South Bohemian": "31", Plzen: "32", "Karlovy Vary": "41", "Usti nad Labem": "42", Liberec: "51",
    "Hradec Kralove": "52", Pardubice: "53", Vysocina: "63", "South Moravian": "64", Olomouc: "71", Zlin: "72", "Moravian-Silesian": "80",
  },
  DE: {
    Bavaria: "BY", Hesse: "HE", "Lower Saxony": "NI", "North Rhine-Westphalia": "NW", "Rhineland-Palatinate": "RP", Saxony: "SN",
    "Saxony-Anhalt": "ST", Thuringia: "TH", "Mecklenburg-Vorpommern": "MV", "Free and Hanseatic Hamburg": "HH", Hamburg: "HH",
    "Free Hanseatic Bremen": "HB", Berlin: "BE",
  },
  DK: { "Capital Region": "84", "Central Jutland": "82", "North Denmark": "81", Zealand: "85", "South Denmark": "83" },
  DO: { Nacional: "01" },
  EG: {
    Cairo: "C", Giza: "GZ", Alexandria: "ALX", Qalyubia: "KB", Dakahlia: "DK", Sharqia: "SHR", Gharbia: "GH", Monufia: "MNF",
    Beheira: "BH", "Port Said": "PTS", Suez: "SUZ", Ismailia: "IS", Asyut: "AST", Sohag: "SHG", Luxor: "LX", Aswan: "ASN",
    Faiyum: "FYM", Minya: "MN", "Beni Suweif": "BNS", Qena: "KN", "Red Sea": "BA", Damietta: "DT", "Kafr el-Sheikh": "KFS",
  },
  ES: {
    Andalusia: "AN", Aragon: "AR", Asturias: "AS", "Balearic Islands": "IB", "Basque Country": "PV", "Canary Islands": "CN",
    Cantabria: "CB", "Castille and León": "CL", "Castille-La Mancha": "CM", Catalonia: "CT", Extremadura: "EX", Galicia: "GA",
    "La Rioja": "RI", Madrid: "MD", Murcia: "MC", Navarre: "NC", Valencia: "VC",
  },
  FI: { Uusimaa: "18", Pirkanmaa: "11", "Southwest Finland": "19", "North Ostrobothnia": "14", "Central Finland": "08", "North Savo": "15" },
  FR: {
    "Auvergne-Rhône-Alpes": "ARA", "Bourgogne-Franche-Comté": "BFC", Brittany: "BRE", "Centre-Val de Loire": "CVL", Corsica: "20R",
    "Grand Est": "GES", "Hauts-de-France": "HDF", "Île-de-France": "IDF", Normandy: "NOR", "Nouvelle-Aquitaine": "NAQ",
    "New Aquitaine": "NAQ", Occitanie: "OCC", "Pays de la Loire": "PDL", "Provence-Alpes-Côte d'Azur": "PAC",
  },
  GR: { Attica: "I", "Central Macedonia": "B" },
  ID: { Jakarta: "JK", "West Java": "JB", "East Java": "JI", "Central Java": "JT", Banten: "BT", Bali: "BA", "North Sumatra": "SU", "South Sulawesi": "SN" },
  IE: { Leinster: "L", Munster: "M", Connacht: "C", Ulster: "U" },
  IN: { "National Capital Territory of Delhi": "DL" },
  IT: {
    Piedmont: "21", "Aosta Valley": "23", Lombardy: "25", "Trentino-Alto Adige": "32", Veneto: "34", "Friuli Venezia Giulia": "36",
    Liguria: "42", "Emilia-Romagna": "45", Tuscany: "52", Umbria: "55", Marche: "57", Lazio: "62", Abruzzo: "65", Molise: "67",
    Campania: "72", Apulia: "75", Basilicata: "77", Calabria: "78", Sicily: "82", Sardinia: "88",
  },
  KR: {
    Seoul: "11", Busan: "26", Daegu: "27", Incheon: "28", Gwangju: "29", Daejeon: "30", Ulsan: "31", Gyeonggi: "41", Gangwon: "42",
    "North Chungcheong": "43", Chungcheongbuk: "43", "South Chungcheong": "44", Chungcheongnam: "44", "North Jeolla": "45",
    Jeollabuk: "45", "South Jeolla": "46", Jeollanam: "46", "North Gyeongsang": "47", Gyeongsangbuk: "47", "South Gyeongsang": "48",
    Gyeongsangnam: "48", Jeju: "49", Sejong: "50",
  },
  MY: { "Kuala Lumpur": "14" },
  NL: { "North Holland": "NH", "South Holland": "ZH", "North Brabant": "NB" },
  PA: { "Provincia de Panama": "8" },
  PH: { "Metro Manila": "00" },
  PL: {
    "Lower Silesia": "02", "Kujawsko-Pomorskie": "04", Lublin: "06", Lubusz: "08", Lodz: "10", "Lesser Poland": "12", Mazovia: "14",
    Opole: "16", Subcarpathia: "18", Podlasie: "20", Pomerania: "22", Silesia: "24", "Świętokrzyskie": "26", "Warmia-Masuria": "28",
    "Greater Poland": "30", "West Pomerania": "32",
  },
  RO: { Bucharest: "B" },
  RU: {
    Moscow: "MOW", "St.-Petersburg": "SPE", "Moscow Oblast": "MOS", "Leningrad Oblast": "LEN", Novosibirsk: "NVS", Sverdlovsk: "SVE",
    "Tatarstan Republic": "TA", "Krasnodar Krai": "KDA",
  },
  SA: { Riyadh: "01", Mecca: "02", Medina: "03", "Eastern Province": "04", Qassim: "05", Tabuk: "07", Asir: "14" },
  SE: {
    Stockholm: "AB", Uppsala: "C", Sodermanland: "D", Ostergotland: "E", Jonkoping: "F", Kronoberg: "G", Kalmar: "H", Gotland: "I",
    Blekinge: "K", Skane: "M", Halland: "N", "Vastra Gotaland": "O", Varmland: "S", Orebro: "T", Vastmanland: "U", Dalarna: "W",
    Gavleborg: "X", Vasternorrland: "Y", Jamtland: "Z", Vasterbotten: "AC", Norrbotten: "BD",
  },
  TH: { Bangkok: "10" },
  TW: { Taipei: "TPE", "New Taipei": "NWT", Taichung: "TXG", Tainan: "TNN", Kaohsiung: "KHH", Taoyuan: "TAO" },
  ZA: { "Western Cape": "WC", "KwaZulu-Natal": "KZN", Gauteng: "GP", "Eastern Cape": "EC" },
};
