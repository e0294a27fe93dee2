/**
 * The citation eval's own small collection (issue 3: "answer citation
 * precision on a small question set the project keeps in test/"): made-up
 * help-center documents about a fictional product, the Tidewell smart
 * kettle, written for this eval, and questions whose answers those
 * documents support. A few questions have no answer in the documents at
 * all: the answerer should say honestly that it found nothing.
 */

export interface CitationDocument {
  readonly id: string;
  readonly title: string;
  /** One paragraph per entry. */
  readonly paragraphs: readonly string[];
}

export interface CitationQuestion {
  readonly id: string;
  readonly question: string;
  /** The documents that support an answer; empty: nothing in the collection answers it. */
  readonly supportedBy: readonly string[];
}

export const CITATION_DOCUMENTS: readonly CitationDocument[] = [
  {
    id: 'shipping',
    title: 'Shipping your Tidewell kettle',
    paragraphs: [
      'Orders placed before 2 pm on a weekday leave our warehouse the same day. Orders placed later, or on a weekend, leave on the next weekday.',
      'Standard delivery takes three to five business days and is free on orders over 40 euros. Below that amount standard delivery costs 4.90 euros.',
      'Express delivery arrives the next business day and costs 12 euros. Express is not available for addresses on islands.',
      'We ship to every country of the European Union, Norway and Switzerland. We do not ship to post office boxes.',
    ],
  },
  {
    id: 'returns',
    title: 'Returns and refunds',
    paragraphs: [
      'You may return a kettle within 45 days of delivery, even after using it. Print the prepaid return label from the Orders page of your account.',
      'Refunds go back to the original payment method within seven days of the parcel reaching our returns center.',
      'Engraved kettles are made to order and cannot be returned unless they arrive damaged.',
    ],
  },
  {
    id: 'warranty',
    title: 'Warranty',
    paragraphs: [
      'Every Tidewell kettle has a three year warranty that covers the heating element, the base and the lid hinge.',
      'The warranty does not cover limescale damage, cracked glass from a fall, or a kettle used with a voltage other than 230 volts.',
      'To make a warranty claim, send a photo of the serial number under the base together with a short description of the fault. A replacement ships within ten days once the claim is accepted.',
    ],
  },
  {
    id: 'pricing',
    title: 'Models and prices',
    paragraphs: [
      'The Tidewell Classic costs 89 euros and holds 1.5 liters. The Tidewell Pro costs 129 euros, holds 1.7 liters and can hold a temperature for up to an hour.',
      'The Tidewell Mini costs 59 euros and holds 0.8 liters, a size made for travel and small offices.',
      'Students receive a 15 percent discount after verifying their enrollment with a university email address.',
    ],
  },
  {
    id: 'accounts',
    title: 'Your Tidewell account',
    paragraphs: [
      'Create an account with an email address and a password of at least twelve characters. Two-step sign-in with an authenticator app can be switched on in the Security settings.',
      'If you forget your password, choose Reset password on the sign-in page and follow the link we email you. The link expires after thirty minutes.',
      'Closing your account deletes your order history and your brewing profiles within fourteen days.',
    ],
  },
  {
    id: 'app',
    title: 'The Tidewell app',
    paragraphs: [
      'The Tidewell app pairs with the Pro model over Bluetooth and lets you start the kettle and pick a temperature from your phone.',
      'Brewing profiles store a temperature and a keep-warm time for each kind of tea. Green tea works best at 80 degrees and black tea at 95 degrees.',
      'The app runs on Android 10 or later and on iOS 15 or later. The Classic and Mini models have no wireless connection.',
    ],
  },
  {
    id: 'descaling',
    title: 'Cleaning and descaling',
    paragraphs: [
      'Descale the kettle once a month in areas with hard water. Fill it halfway with equal parts water and white vinegar, bring it to a boil, and let it rest for an hour before rinsing twice.',
      'Wipe the outside with a damp cloth only. The kettle and its base must never go in the dishwasher.',
      'The mesh filter in the spout lifts out and can be rinsed under the tap every week.',
    ],
  },
  {
    id: 'safety',
    title: 'Safety features',
    paragraphs: [
      'The kettle switches itself off when the water boils and when it is lifted from the base.',
      'A dry-boil guard cuts the power within seconds if the kettle is switched on while empty. Let it cool for ten minutes before filling it again.',
      'Keep the kettle and its cord out of reach of children, and never fill it past the MAX line on the water window.',
    ],
  },
  {
    id: 'payments',
    title: 'Paying for your order',
    paragraphs: [
      'We accept Visa, Mastercard, PayPal and bank transfer. Bank transfers must arrive within five days or the order is cancelled.',
      'Gift cards can be combined with any other payment method and never expire.',
      'Prices include VAT for deliveries within the European Union. Deliveries to Norway and Switzerland may be charged import duties on arrival.',
    ],
  },
  {
    id: 'troubleshooting',
    title: 'Troubleshooting',
    paragraphs: [
      'If the power light blinks red, the dry-boil guard has tripped: let the kettle cool before using it again.',
      'If the app cannot find the kettle, hold the temperature button for five seconds until the light flashes blue, then search again from the app.',
      'A clicking noise while heating is normal and comes from the element expanding.',
    ],
  },
];

export const CITATION_QUESTIONS: readonly CitationQuestion[] = [
  { id: 'q01', question: 'How long does standard delivery take?', supportedBy: ['shipping'] },
  {
    id: 'q02',
    question: 'How much does express delivery cost?',
    supportedBy: ['shipping'],
  },
  {
    id: 'q03',
    question: 'Can you ship my order to a post office box?',
    supportedBy: ['shipping'],
  },
  {
    id: 'q04',
    question: 'How many days do I have to return a kettle?',
    supportedBy: ['returns'],
  },
  {
    id: 'q05',
    question: 'When will I get my refund after returning the parcel?',
    supportedBy: ['returns'],
  },
  {
    id: 'q06',
    question: 'Can I return an engraved kettle?',
    supportedBy: ['returns'],
  },
  {
    id: 'q07',
    question: 'What does the warranty cover?',
    supportedBy: ['warranty'],
  },
  {
    id: 'q08',
    question: 'How do I make a warranty claim?',
    supportedBy: ['warranty'],
  },
  {
    id: 'q09',
    question: 'How much does the Tidewell Pro cost?',
    supportedBy: ['pricing'],
  },
  {
    id: 'q10',
    question: 'Is there a discount for students?',
    supportedBy: ['pricing'],
  },
  {
    id: 'q11',
    question: 'How do I reset a forgotten password?',
    supportedBy: ['accounts'],
  },
  {
    id: 'q12',
    question: 'What happens to my order history when I close my account?',
    supportedBy: ['accounts'],
  },
  {
    id: 'q13',
    question: 'Which models work with the phone app?',
    supportedBy: ['app'],
  },
  {
    id: 'q14',
    question: 'What temperature is best for green tea?',
    supportedBy: ['app'],
  },
  {
    id: 'q15',
    question: 'How do I descale the kettle with vinegar?',
    supportedBy: ['descaling'],
  },
  {
    id: 'q16',
    question: 'Can the kettle go in the dishwasher?',
    supportedBy: ['descaling'],
  },
  {
    id: 'q17',
    question: 'What happens if I switch the kettle on while it is empty?',
    supportedBy: ['safety', 'troubleshooting'],
  },
  {
    id: 'q18',
    question: 'Which payment methods do you accept?',
    supportedBy: ['payments'],
  },
  {
    id: 'q19',
    question: 'Do gift cards expire?',
    supportedBy: ['payments'],
  },
  {
    id: 'q20',
    question: 'Why is the power light blinking red?',
    supportedBy: ['troubleshooting', 'safety'],
  },
  {
    id: 'q21',
    question: 'The app cannot find my kettle, what should I do?',
    supportedBy: ['troubleshooting'],
  },
  // Nothing in the collection answers these.
  { id: 'u01', question: 'Do you sell replacement coffee grinders?', supportedBy: [] },
  { id: 'u02', question: 'Who founded Tidewell and in which year?', supportedBy: [] },
  { id: 'u03', question: 'Is there a loyalty points program?', supportedBy: [] },
];
