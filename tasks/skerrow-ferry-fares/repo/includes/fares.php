<?php
/** Single fares in pounds. A return costs two singles. */

const FARES = [
    'adult' => ['Adult', 4.60],
    'child' => ['Child (5 to 15)', 2.30],
    'infant' => ['Under 5', 0.00],
    'bicycle' => ['Bicycle', 1.00],
    'car' => ['Car or motorbike', 18.50],
    'van' => ['Van or car with trailer', 26.00],
];

function money(float $amount): string
{
    return $amount == 0.0 ? 'Free' : '£' . number_format($amount, 2);
}
