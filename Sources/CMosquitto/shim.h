// libmosquitto 2.x from Debian (libmosquitto-dev): the MQTT client (Sources/SensorMQTT wraps it).
#include <mosquitto.h>
// MQTT 5 property identifiers (MQTT_PROP_SESSION_EXPIRY_INTERVAL).
#include <mqtt_protocol.h>
