from oscar.apps.partner.admin import *  
