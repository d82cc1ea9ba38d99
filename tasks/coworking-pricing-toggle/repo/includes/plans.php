<?php
// Loomworks membership plans. Prices in euros; `annual` is the yearly price (two months free),
// null where a plan is not sold yearly.
return [
    [
        'id' => 'day-pass',
        'name' => 'Day pass',
        'monthly' => 22,
        'unit' => 'per day',
        'annual' => null,
        'blurb' => 'Drop in when you need a change of scene.',
        'perks' => ['Any hot desk, 8:00–19:00', 'Coffee and tea on us', 'Guest Wi-Fi'],
    ],
    [
        'id' => 'flex',
        'name' => 'Flex desk',
        'monthly' => 190,
        'unit' => 'per month',
        'annual' => 1900,
        'blurb' => 'A hot desk every weekday, plus meeting room time.',
        'perks' => ['Any hot desk, 24/7', '4 meeting room hours a month', 'Business address'],
    ],
    [
        'id' => 'dedicated',
        'name' => 'Dedicated desk',
        'monthly' => 320,
        'unit' => 'per month',
        'annual' => 3200,
        'blurb' => 'Your own desk by the mill windows, ready when you are.',
        'perks' => ['Your own desk and chair, 24/7', '10 meeting room hours a month', 'Locker and mail handling'],
        'featured' => true,
    ],
    [
        'id' => 'studio',
        'name' => 'Private studio',
        'monthly' => 780,
        'unit' => 'per month',
        'annual' => 7800,
        'blurb' => 'A lockable studio for teams of two to four.',
        'perks' => ['Lockable studio for up to 4', '20 meeting room hours a month', 'Locker and mail handling'],
    ],
];
