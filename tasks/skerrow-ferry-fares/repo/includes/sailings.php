<?php
/** The Monday to Saturday timetable. Each crossing takes 25 minutes. */

const SAILINGS = [
    'ardle' => [
        'name' => 'Port Ardle',
        'times' => [
            ['07:10', '07:35', 'Schools and commuters'],
            ['08:30', '08:55', ''],
            ['10:15', '10:40', 'Freight first'],
            ['12:00', '12:25', ''],
            ['14:20', '14:45', ''],
            ['17:05', '17:30', 'Busiest crossing, book vehicles'],
        ],
    ],
    'skerrow' => [
        'name' => 'Skerrow',
        'times' => [
            ['07:45', '08:10', 'Schools and commuters'],
            ['09:20', '09:45', ''],
            ['11:05', '11:30', ''],
            ['13:10', '13:35', 'Freight first'],
            ['15:30', '15:55', ''],
            ['18:00', '18:25', 'Last boat off the island'],
        ],
    ],
];
